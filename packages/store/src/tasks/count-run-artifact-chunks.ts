import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isTaskId } from './task-row.ts';

/**
 * The state an event records, for the two kinds that carry one (`task` snapshots and
 * `statusUpdate`s); null for messages and artifact updates.
 */
const eventState = sql<
  string | null
>`coalesce(payload->'statusUpdate'->'status'->>'state', payload->'task'->'status'->>'state')`;

/**
 * Chunks per artifactId written by the current run generation, so a retried run (at-least-once
 * execution, ARCHITECTURE.md §3 rule 4) skips what an earlier attempt already stored. The
 * generation starts after the newest event that put the task in a state other than WORKING
 * (SUBMITTED, an interrupted state): status messages while WORKING and re-claims after a lapsed
 * lease do not start a new one. The schema has no generation column, so the event log is the
 * record (whole for live tasks: retention prunes only terminal tasks' logs, see delete-expired-events.ts).
 */
export async function countRunArtifactChunks(
  db: Db,
  tenantId: string,
  taskId: string,
): Promise<Map<string, number>> {
  if (!isTaskId(taskId)) return new Map();
  const rows = await db
    .selectFrom('artifact_chunks')
    .select((eb) => ['artifact_id', eb.fn.countAll<number>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where((eb) =>
      eb(
        'seq',
        '>',
        eb.fn.coalesce(
          eb
            .selectFrom('task_events')
            .select((e) => e.fn.max('seq').as('seq'))
            .where('tenant_id', '=', tenantId)
            .where('task_id', '=', taskId)
            .where(eventState, '<>', TaskState.WORKING),
          eb.lit(0),
        ),
      ),
    )
    .groupBy('artifact_id')
    .execute();
  return new Map(rows.map((r) => [r.artifact_id, r.n]));
}
