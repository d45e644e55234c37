import type { Db } from '../db.ts';
import { LIVE_STATE_LITERALS } from './live-states.ts';
import type { LapsedTask } from '../task-store.ts';
import { now } from './sql-time.ts';

/**
 * Live tasks whose lease ran out, longest-lapsed first, across tenants (the reaper serves them all).
 * The state list (literals) matches the partial index tasks_live_lease, so the scan touches only
 * live work.
 */
export async function findLapsedLeases(db: Db, limit: number): Promise<LapsedTask[]> {
  const rows = await db
    .selectFrom('tasks')
    .select(['tenant_id', 'id', 'lease_owner', 'attempts', 'trace_context'])
    .where('state', 'in', LIVE_STATE_LITERALS)
    .where('lease_expires_at', '<', now())
    .where('lease_owner', 'is not', null)
    .orderBy('lease_expires_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    taskId: r.id,
    leaseOwner: r.lease_owner ?? '',
    attempts: r.attempts,
    ...(r.trace_context ? { traceContext: r.trace_context } : {}),
  }));
}
