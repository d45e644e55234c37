import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isTaskId } from './task-row.ts';

/**
 * Bytes of the task's history as JSON text, what its size limit counts (EngineConfig
 * taskMaxHistoryBytes). Read in Postgres, one number out: only a continuation asks, before it
 * appends, and the history it measures is bounded by that very limit.
 */
export async function historyBytes(db: Db, tenantId: string, taskId: string): Promise<number> {
  if (!isTaskId(taskId)) return 0;
  const row = await db
    .selectFrom('task_messages')
    .select(sql<string>`coalesce(sum(octet_length(message::text)), 0)`.as('bytes'))
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}
