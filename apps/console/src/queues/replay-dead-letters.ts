import type { DeliveryKey } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';

type Deps = Pick<ConsoleServices, 'outbox' | 'hints' | 'log'>;

/** A dead delivery back to pending with a fresh attempt budget; wakes the pushers. False: not dead. */
export async function replayDeadLetter(services: Deps, key: DeliveryKey): Promise<boolean> {
  const replayed = await services.outbox.replayDeadLetter(key);
  if (replayed) {
    wakePushers(services);
    services.log.info({ ...key, action: 'replay-dead-letter' }, 'console: dead letter replayed');
  }
  return replayed;
}

/** Every dead delivery of a tenant; how many went back to pending. */
export async function replayAllDeadLetters(services: Deps, tenantId: string): Promise<number> {
  const replayed = await services.outbox.replayAllDeadLetters(tenantId);
  if (replayed > 0) {
    wakePushers(services);
    services.log.info(
      { tenantId, replayed, action: 'replay-all-dead-letters' },
      'console: dead letters replayed',
    );
  }
  return replayed;
}

/**
 * Not awaited, and best effort: the pushers find due deliveries on their own poll, and a Redis
 * that is away or not answering must not hold the operator's answer once the replay committed.
 */
function wakePushers(services: Deps): void {
  services.hints
    .publishPushDue()
    .catch((err: unknown) => services.log.warn({ err }, 'console: push wake-up failed; pushers will poll'));
}
