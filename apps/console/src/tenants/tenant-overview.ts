import { isRedisAway, readRunCapUsage, resultWithin, type RunCapUsage } from '@switchyard/queue';
import type { CappedCount, TenantRecord } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';

export interface TenantView extends TenantRecord {
  /** Its live tasks not yet leased by a worker, counted in the store. */
  queued: CappedCount;
  /** Its run cap's slots and parked jobs; null when Redis is away or did not answer. */
  runs: RunCapUsage | null;
}

/** As on the queues page: Redis may be away or hung while operators look, Postgres answers the rest. */
const RUN_COUNTS_WAIT_MS = 2000;

/**
 * Every tenant (or only `onlyId`, read alone: the JSON API answers a change to one tenant with
 * it) with its settings, its backlog and what its run cap holds now.
 */
export async function loadTenantOverview(services: ConsoleServices, onlyId?: string): Promise<TenantView[]> {
  const [tenants, backlogs] = await Promise.all([
    onlyId === undefined
      ? services.admin.listTenants()
      : services.admin.getTenant(onlyId).then((t) => (t ? [t] : [])),
    services.reads.countQueuedByTenant(undefined, onlyId),
  ]);
  const ids = tenants.map((t) => t.id);
  const usage = isRedisAway(services.redis)
    ? null
    : await resultWithin(readRunCapUsage(services.redis, services.keys, ids), RUN_COUNTS_WAIT_MS, null);
  const queued = new Map(backlogs.map((b) => [b.tenantId, b.queued]));
  return tenants.map((t) => ({
    ...t,
    queued: queued.get(t.id) ?? { count: 0, capped: false },
    runs: usage?.get(t.id) ?? null,
  }));
}
