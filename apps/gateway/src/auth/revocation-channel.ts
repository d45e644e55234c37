import type { Redis } from 'ioredis';
import type { QueueKeys } from '@switchyard/queue';
import { z } from '@switchyard/runtime';

/** What the admin API announces on `keys.authChannel` when a credential stops being valid. */
export type Revocation =
  { kind: 'api-key'; tenantId: string; keyId: string } | { kind: 'tenant'; tenantId: string };

const revocationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('api-key'), tenantId: z.string(), keyId: z.string() }),
  z.object({ kind: z.literal('tenant'), tenantId: z.string() }),
]);

export async function publishRevocation(
  redis: Redis,
  keys: QueueKeys,
  revocation: Revocation,
): Promise<void> {
  await redis.publish(keys.authChannel, JSON.stringify(revocation));
}

/**
 * Listens for revocations on the process's subscriber connection (shared with the SubscriptionHub,
 * which ignores channels it does not watch). Resolves once Redis confirmed the subscription, so a
 * gateway that has started cannot miss one. Returns the unsubscribe function.
 */
export async function subscribeRevocations(
  subscriber: Redis,
  keys: QueueKeys,
  handlers: { onRevocation: (revocation: Revocation) => void; onResync: () => void },
): Promise<() => Promise<void>> {
  const onMessage = (channel: string, raw: string) => {
    if (channel !== keys.authChannel) return;
    const parsed = revocationSchema.safeParse(safeJson(raw));
    if (parsed.success) handlers.onRevocation(parsed.data);
  };
  // Revocations published while the connection was down are lost: forget everything cached.
  const onReady = () => handlers.onResync();
  subscriber.on('message', onMessage);
  await subscriber.subscribe(keys.authChannel);
  subscriber.on('ready', onReady);
  return async () => {
    subscriber.off('message', onMessage);
    subscriber.off('ready', onReady);
    await subscriber.unsubscribe(keys.authChannel).catch(() => undefined);
  };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
