import { isTerminal, TASK_STATES, TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { DeleteAgentResult } from './admin-store.ts';

/** Live tasks counted at most: enough to say how many, and the count stays one short index range. */
export const LIVE_TASK_COUNT_CAP = 1000;

/**
 * The states a task can still leave (submitted, working, waiting for input or auth), as literals:
 * the count reads the (tenant_id, agent_id, state) index tasks_console_agent_state.
 */
const LIVE_STATES = TASK_STATES.filter((s) => s !== TaskState.UNSPECIFIED && !isTerminal(s)).map((s) =>
  sql.lit(s),
);

/**
 * Deletes the registration unless the agent still has live tasks: without it nobody could read,
 * cancel or continue them (every call through the agent answers TaskNotFound), they would never
 * be terminal and so never leave with retention, and an agent registered again under the id, with
 * another executor, would continue them. Finished tasks keep their agent_id (history stays
 * readable). Count and delete are one statement, so a task finishing meanwhile cannot be counted
 * after the delete.
 */
export async function deleteAgent(db: Db, tenantId: string, agentId: string): Promise<DeleteAgentResult> {
  const { rows } = await sql<{ existed: boolean; live: number; deleted: boolean }>`
    WITH live AS (
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM tasks
        WHERE tenant_id = ${tenantId} AND agent_id = ${agentId} AND state IN (${sql.join(LIVE_STATES)})
        LIMIT ${LIVE_TASK_COUNT_CAP + 1}
      ) capped
    ), gone AS (
      DELETE FROM agents
      WHERE tenant_id = ${tenantId} AND id = ${agentId} AND (SELECT n FROM live) = 0
      RETURNING 1
    )
    SELECT
      EXISTS (SELECT 1 FROM agents WHERE tenant_id = ${tenantId} AND id = ${agentId}) AS existed,
      (SELECT n FROM live) AS live,
      EXISTS (SELECT 1 FROM gone) AS deleted
  `.execute(db);
  const row = rows[0];
  if (!row?.existed) return 'absent';
  if (row.deleted) return 'deleted';
  return row.live > LIVE_TASK_COUNT_CAP
    ? { liveTasks: LIVE_TASK_COUNT_CAP, atLeast: true }
    : { liveTasks: row.live, atLeast: false };
}
