import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { LIVE_STATE_LITERALS } from './live-states.ts';
import type { DispatchableTask, DispatchPosition } from '../task-store.ts';
import { msAgo } from './sql-time.ts';

/**
 * Unleased live tasks that have been due for at least `minAgeMs` and untouched as long: work whose
 * queue job was lost (an enqueue that failed after commit, a Redis flush). The age margin keeps the
 * reaper from racing the normal enqueue path. Message replies never need a worker again.
 *
 * A disabled tenant's tasks are left out: its runs do not start until it is enabled again.
 *
 * Oldest first, from `after` on: most of what this finds under a backlog still has its job queued,
 * so a scan that always began at the oldest would see the same backlog every sweep and never reach
 * a lost job behind it (another tenant's, say); the reaper continues where its last sweep stopped.
 */
export async function findDispatchable(
  db: Db,
  minAgeMs: number,
  limit: number,
  after?: DispatchPosition,
): Promise<DispatchableTask[]> {
  let query = db
    .selectFrom('tasks')
    .select(['tenant_id', 'id', 'agent_id', 'version', 'attempts', 'run_after'])
    // ISO 8601 in UTC to the microsecond: read back the same whatever the session's DateStyle.
    .select(
      sql<string>`to_char(run_after AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as(
        'run_after_text',
      ),
    )
    .where('state', 'in', LIVE_STATE_LITERALS)
    .where('lease_owner', 'is', null)
    .where('run_after', '<=', msAgo(minAgeMs))
    .where('updated_at', '<=', msAgo(minAgeMs))
    .where('visibility', '<>', 'message')
    // A disabled tenant's work waits for the tenant to be enabled (task-runner.ts). The list is
    // read once (an init plan), so the scan stays an ordered walk of the index, not an anti-join.
    .where(sql<boolean>`tenant_id <> ALL (ARRAY(SELECT id FROM tenants WHERE disabled_at IS NOT NULL))`);
  if (after)
    query = query.where(
      sql<boolean>`(run_after, tenant_id, id) > (${after.runAfter}::timestamptz, ${after.tenantId}, ${after.taskId}::uuid)`,
    );
  const rows = await query.orderBy('run_after').orderBy('tenant_id').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    taskId: r.id,
    agentId: r.agent_id,
    version: r.version,
    attempts: r.attempts,
    runAfter: r.run_after,
    position: { runAfter: r.run_after_text, tenantId: r.tenant_id, taskId: r.id },
  }));
}
