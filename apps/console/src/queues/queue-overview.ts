import type { DeadLetterPage, TenantDeadLetters } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';

export interface QueueOverview {
  /** The BullMQ dispatch queue (TaskQueue.stats()). */
  dispatch: { waiting: number; active: number; delayed: number; failed: number; oldestWaitingAgeMs: number };
  /** Per tenant, dispatches queued but not started: the counters that steer fair priority. */
  backlogs: Array<{ tenantId: string; queued: number }>;
  outbox: { pending: number; oldestPendingAgeMs: number };
  deadLetters: TenantDeadLetters[];
}

/** Everything on the queues page but the dead-letter list, read in parallel. */
export async function loadQueueOverview(services: ConsoleServices): Promise<QueueOverview> {
  const tenants = await services.admin.listTenants();
  const [dispatch, pending, oldestPendingAgeMs, deadLetters, backlogs] = await Promise.all([
    services.queue.stats(),
    services.outbox.countPending(),
    services.outbox.oldestPendingAgeMs(),
    services.reads.countDeadLettersByTenant(),
    tenants.length === 0
      ? Promise.resolve([] as Array<string | null>)
      : // One slot in Redis Cluster: every key shares the prefix's hash tag (queue-keys.ts).
        services.redis.mget(...tenants.map((t) => services.keys.tenantBacklog(t.id))),
  ]);
  return {
    dispatch,
    backlogs: tenants.map((t, i) => ({ tenantId: t.id, queued: Math.max(0, Number(backlogs[i] ?? 0) || 0) })),
    outbox: { pending, oldestPendingAgeMs },
    deadLetters,
  };
}

export interface DeadLetterView {
  tenantId: string;
  page: DeadLetterPage;
  cursor?: string;
}
