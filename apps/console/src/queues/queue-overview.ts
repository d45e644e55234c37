import type { DeadLetterPage, TenantDeadLetters, TenantQueued } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';

export interface QueueOverview {
  /** The BullMQ dispatch queue (TaskQueue.stats()). */
  dispatch: { waiting: number; active: number; delayed: number; failed: number; oldestWaitingAgeMs: number };
  /** Per tenant, its tasks waiting for a worker, counted in the store. */
  backlogs: TenantQueued[];
  outbox: { pending: number; oldestPendingAgeMs: number };
  deadLetters: TenantDeadLetters[];
}

/** Everything on the queues page but the dead-letter list, read in parallel. */
export async function loadQueueOverview(services: ConsoleServices): Promise<QueueOverview> {
  const [dispatch, pending, oldestPendingAgeMs, deadLetters, backlogs] = await Promise.all([
    services.queue.stats(),
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
