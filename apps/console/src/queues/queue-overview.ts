import { isRedisAway, resultWithin } from '@switchyard/queue';
import type { DeadLetterPage, TenantDeadLetters, TenantQueued } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';

export interface QueueOverview {
  /** The BullMQ dispatch queue (TaskQueue.stats()); null when Redis is away or did not answer. */
  dispatch: {
    waiting: number;
    active: number;
    delayed: number;
    failed: number;
    oldestWaitingAgeMs: number;
  } | null;
  /** Per tenant, its tasks waiting for a worker, counted in the store. */
  backlogs: TenantQueued[];
  outbox: { pending: number; oldestPendingAgeMs: number };
  deadLetters: TenantDeadLetters[];
}

/**
 * How long the page waits for the dispatch queue's counts. They live in Redis, which may be away
 * or hung, and the rest of the page comes from Postgres: an outage is when operators look.
 */
const DISPATCH_COUNTS_WAIT_MS = 2000;

function dispatchCounts(
  services: Pick<ConsoleServices, 'redis' | 'queue'>,
): Promise<QueueOverview['dispatch']> {
  if (isRedisAway(services.redis)) return Promise.resolve(null);
  return resultWithin(services.queue.stats(), DISPATCH_COUNTS_WAIT_MS, null);
}

/** Everything on the queues page but the dead-letter list, read in parallel. */
export async function loadQueueOverview(services: ConsoleServices): Promise<QueueOverview> {
  const [dispatch, pending, oldestPendingAgeMs, deadLetters, backlogs] = await Promise.all([
    dispatchCounts(services),
    services.outbox.countPending(),
    services.outbox.oldestPendingAgeMs(),
    services.reads.countDeadLettersByTenant(),
    services.reads.countQueuedByTenant(),
  ]);
  return {
    dispatch,
    backlogs,
    outbox: { pending, oldestPendingAgeMs },
    deadLetters,
  };
}

export interface DeadLetterView {
  tenantId: string;
  page: DeadLetterPage;
  cursor?: string;
}
