import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { LIVE_STATE_LITERALS } from './live-states.ts';
import type { DispatchPosition, DispatchScan } from '../task-store.ts';
import { msAgo } from './sql-time.ts';

/**
 * One step of the reaper's walk over unleased live work (run_after ≤ now - `minAgeMs`), in
 * (run_after, tenant, id) order from `after` on: it reads at most `limit` such tasks, and returns
 * those that are due: untouched for `minAgeMs` too (the margin keeps the reaper from racing the
 * normal enqueue path), not Message replies (they never need a worker again), and not of a
 * disabled tenant (its runs wait until it is enabled, task-runner.ts).
 *
 * The read is bounded by what the index alone can decide: a disabled tenant's backlog, or one of
 * replies, is read `limit` rows a sweep and walked past, not read whole by every sweep that looks
 * for a due task behind it. The walk goes on from `next` (the last task read, when it read a full
 * `limit`): most of what it finds under a backlog still has its job queued, so a walk that always
 * began at the oldest would see the same backlog every sweep and never reach a lost job behind
 * it (another tenant's, say).
 */
export async function findDispatchable(
  db: Db,
  minAgeMs: number,
  limit: number,
  after?: DispatchPosition,
): Promise<DispatchScan> {
  let query = db
    .selectFrom('tasks')
    .select(['tenant_id', 'id', 'agent_id', 'version', 'attempts', 'run_after', 'trace_context'])
    // ISO 8601 in UTC to the microsecond: read back the same whatever the session's DateStyle.
    .select(
      sql<string>`to_char(run_after AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as(
        'run_after_text',
      ),
    )
    // Decided per row read, not as a filter, so it cannot stretch the read. The disabled tenants
    // are read once (an init plan).
    .select(
      sql<boolean>`(visibility <> 'message' AND updated_at <= ${msAgo(minAgeMs)}
        AND tenant_id <> ALL (ARRAY(SELECT id FROM tenants WHERE disabled_at IS NOT NULL)))`.as('due'),
    )
    .where('state', 'in', LIVE_STATE_LITERALS)
    .where('lease_owner', 'is', null)
    .where('run_after', '<=', msAgo(minAgeMs));
  if (after)
    query = query.where(
      sql<boolean>`(run_after, tenant_id, id) > (${after.runAfter}::timestamptz, ${after.tenantId}, ${after.taskId}::uuid)`,
    );
  const rows = await query.orderBy('run_after').orderBy('tenant_id').orderBy('id').limit(limit).execute();
  const position = (r: (typeof rows)[number]): DispatchPosition => ({
    runAfter: r.run_after_text,
    tenantId: r.tenant_id,
    taskId: r.id,
  });
  const last = rows.at(-1);
  return {
    tasks: rows
      .filter((r) => r.due)
      .map((r) => ({
        tenantId: r.tenant_id,
        taskId: r.id,
        agentId: r.agent_id,
        version: r.version,
        attempts: r.attempts,
        runAfter: r.run_after,
        ...(r.trace_context ? { traceContext: r.trace_context } : {}),
        position: position(r),
      })),
    next: rows.length === limit && last ? position(last) : undefined,
  };
}
