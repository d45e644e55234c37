import type { Db } from '../db.ts';
import { LIVE_STATE_LITERALS } from './live-states.ts';
import type { DispatchableTask } from '../task-store.ts';
import { msAgo } from './sql-time.ts';

/**
 * Unleased live tasks that have been due for at least `minAgeMs` and untouched as long: work whose
 * queue job was lost (an enqueue that failed after commit, a Redis flush). The age margin keeps the
 * reaper from racing the normal enqueue path. Message replies never need a worker again.
 */
export async function findDispatchable(db: Db, minAgeMs: number, limit: number): Promise<DispatchableTask[]> {
  const rows = await db
    .selectFrom('tasks')
    .select(['tenant_id', 'id', 'agent_id', 'version', 'attempts', 'run_after'])
    .where('state', 'in', LIVE_STATE_LITERALS)
    .where('lease_owner', 'is', null)
    .where('run_after', '<=', msAgo(minAgeMs))
    .where('updated_at', '<=', msAgo(minAgeMs))
    .where('visibility', '<>', 'message')
    .orderBy('run_after')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    taskId: r.id,
    agentId: r.agent_id,
    version: r.version,
    attempts: r.attempts,
    runAfter: r.run_after,
  }));
}
