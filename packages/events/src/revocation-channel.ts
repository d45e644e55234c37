import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { QueueKeys } from '@switchyard/queue';
import { z } from 'zod';
import type { Logger } from '@switchyard/telemetry';

/** What the admin API announces on `keys.authChannel` when a credential stops being valid. */
export type Revocation =
  | { kind: 'api-key'; tenantId: string; keyId: string }
  /** A tenant disabled or enabled again (`disabled: false`; absent from older gateways: a disable). */
  | { kind: 'tenant'; tenantId: string; disabled?: boolean };

/** What an announcement learned: how many gateways Redis handed it to, and how many confirmed. */
export interface Announced {
  receivers: number;
  confirmed: number;
}

// `id` is absent in announcements of gateways older than the confirmation round; they get no ack.
const messageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('api-key'),
    tenantId: z.string(),
    keyId: z.string(),
    id: z.string().optional(),
  }),
  z.object({
    kind: z.literal('tenant'),
    tenantId: z.string(),
    disabled: z.boolean().optional(),
    id: z.string().optional(),
  }),
  z.object({ kind: z.literal('ack'), id: z.string() }),
]);

export interface RevocationChannelOptions {
  /** Publishes announcements and acks (a command connection). */
  redis: Redis;
  /** The process's subscriber connection, shared with the SubscriptionHub (it ignores this channel). */
  subscriber: Redis;
  keys: QueueKeys;
  /** Drops the revoked credential from this process's caches; synchronous, so an ack means done. */
  apply: (revocation: Revocation) => void;
  /** Forgets every cached credential (announcements may have been missed while disconnected). */
  resync: () => void;
  log: Logger;
  /** How long an announcement waits for every gateway's ack. Default 2000 ms. */
  confirmTimeoutMs?: number;
}

/**
 * Revocations that hold at once on every gateway replica. A cached credential must stop working the
 * moment the admin API answers, so an announcement is applied here first, then published, and
 * answered only when every gateway that Redis delivered it to has acked, i.e. has already dropped
 * the credential. PUBLISH's reply counts the receivers. A gateway that does not ack in time (it is
 * stalled, or a debugging `PSUBSCRIBE *` inflates the count) is logged and the announcement
 * returns anyway: the store change has committed, and cache entries expire within their TTL.
 * A gateway whose subscriber reconnects forgets everything it cached, since it may have missed one.
 *
 * On Redis Cluster PUBLISH counts only the subscribers of the node that ran it, so there the wait
 * covers the gateways subscribed through that node; the others drop the key when the broadcast
 * reaches them, typically within a millisecond, but not provably before the answer.
 */
export class RevocationChannel {
  readonly #options: RevocationChannelOptions;
  readonly #confirmTimeoutMs: number;
  readonly #waiting = new Map<string, () => void>();
  /** Announcements still waiting for acks: stop() lets them finish while acks can still arrive. */
  readonly #announcing = new Set<Promise<unknown>>();
  #stopped = true;

  constructor(options: RevocationChannelOptions) {
    this.#options = options;
    this.#confirmTimeoutMs = options.confirmTimeoutMs ?? 2000;
  }

  /**
   * Resolves once Redis confirmed the subscription, so a gateway that waits for it cannot miss a
   * revocation. With Redis away the SUBSCRIBE waits for the reconnect (the subscriber connection
   * queues it, however long), so the gateway listens meanwhile and stays unready
   * (create-gateway.ts). Rejects only when the connection refuses or is closed (a stop).
   */
  async start(): Promise<void> {
    const { subscriber, keys } = this.#options;
    this.#stopped = false;
    subscriber.on('message', this.#onMessage);
    await subscriber.subscribe(keys.authChannel);
    // Stopped while the SUBSCRIBE waited for Redis: stop() has let go of the connection already.
    if (this.#stopped) return;
    subscriber.on('ready', this.#onReady);
  }

  /**
   * Lets pending announcements collect their acks first (for at most the confirmation timeout:
   * a PUBLISH waits for Redis to come back), then unsubscribes, and only then stops listening: a
   * revocation Redis counts this gateway in must still be applied and acked here.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const { subscriber, keys } = this.#options;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#confirmTimeoutMs)));
    await Promise.race([Promise.allSettled([...this.#announcing]), late]);
    clearTimeout(timer);
    // Only on a live connection: with Redis away the UNSUBSCRIBE would wait for the reconnect,
    // and a connection that is not subscribed has nothing to undo.
    if (subscriber.status === 'ready') await subscriber.unsubscribe(keys.authChannel).catch(() => undefined);
    subscriber.off('message', this.#onMessage);
    subscriber.off('ready', this.#onReady);
  }

  /** Applies the revocation here and on every other gateway; see the class comment for "every". */
  async announce(revocation: Revocation): Promise<Announced> {
    const announcing = this.#announce(canonical(revocation));
    this.#announcing.add(announcing);
    try {
      return await announcing;
    } finally {
      this.#announcing.delete(announcing);
    }
  }

  async #announce(revocation: Revocation): Promise<Announced> {
    const { redis, keys, apply, log } = this.#options;
    apply(revocation);
    const id = randomUUID();
    let confirmed = 0;
    let receivers = Infinity;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.#waiting.set(id, () => {
      confirmed += 1;
      if (confirmed >= receivers) settle();
    });
    const timer = setTimeout(settle, this.#confirmTimeoutMs);
    try {
      // The PUBLISH itself is inside the time limit: a Redis away or not answering (its connection
      // waits for it) must not hold the admin's answer; the revocation is committed and applied
      // here, and the other gateways' cached entries expire within their TTL.
      const published = redis.publish(keys.authChannel, JSON.stringify({ ...revocation, id })).then((n) => {
        receivers = n;
        // Acks can beat PUBLISH's own reply back to this process.
        if (confirmed >= n) settle();
      });
      await Promise.race([published, settled]);
      await settled;
    } finally {
      clearTimeout(timer);
      this.#waiting.delete(id);
    }
    if (confirmed < receivers)
      log.warn(
        {
          revocation,
          receivers: Number.isFinite(receivers) ? receivers : 'unknown (Redis did not answer)',
          confirmed,
          waitedMs: this.#confirmTimeoutMs,
        },
        'not every gateway confirmed a revocation in time; cached entries expire within their TTL',
      );
    return { receivers: Number.isFinite(receivers) ? receivers : 0, confirmed };
  }

  readonly #onMessage = (channel: string, raw: string): void => {
    if (channel !== this.#options.keys.authChannel) return;
    const parsed = messageSchema.safeParse(safeJson(raw));
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.kind === 'ack') {
      this.#waiting.get(message.id)?.();
      return;
    }
    const { id, ...revocation } = message;
    // Its own announcement comes back too: applied already, it only counts as this gateway's ack.
    const own = id === undefined ? undefined : this.#waiting.get(id);
    if (own) return own();
    this.#options.apply(canonical(revocation));
    if (id === undefined) return;
    const { redis, keys, log } = this.#options;
    redis
      .publish(keys.authChannel, JSON.stringify({ kind: 'ack', id }))
      .catch((err: unknown) => log.warn({ err }, 'could not confirm a revocation'));
  };

  // ioredis reports `ready` before it has subscribed again, so a revocation published in between
  // is missed, and a key lookup racing it could cache the revoked key anew: forget everything now,
  // and once more when the subscription is confirmed.
  readonly #onReady = (): void => {
    const { subscriber, keys, resync, log } = this.#options;
    resync();
    subscriber.subscribe(keys.authChannel).then(
      () => resync(),
      (err: unknown) => log.warn({ err }, 'could not subscribe to revocations again'),
    );
  };
}

/**
 * Announces revocations from a process that holds no RevocationChannel (the demo seed): each is
 * published once and applied by every gateway subscribed now, without an id, so none is asked to
 * confirm it (RevocationChannel answers acks only to announcements with one). A gateway not
 * subscribed at that moment drops the key when its cache entry expires. Returns how many
 * subscribers Redis handed the last one to.
 */
export async function publishRevocations(
  redis: Pick<Redis, 'publish'>,
  keys: Pick<QueueKeys, 'authChannel'>,
  revocations: readonly Revocation[],
): Promise<number> {
  let receivers = 0;
  for (const revocation of revocations)
    receivers = await redis.publish(keys.authChannel, JSON.stringify(canonical(revocation)));
  return receivers;
}

/**
 * Key ids are uuids, which the caches and the stream registry compare as strings with the store's
 * lowercase form: an id announced in capitals (an admin call that passed the path value on, a
 * gateway of an older version) would match nothing and revoke nothing.
 */
function canonical(revocation: Revocation): Revocation {
  return revocation.kind === 'api-key'
    ? { ...revocation, keyId: revocation.keyId.toLowerCase() }
    : revocation;
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
