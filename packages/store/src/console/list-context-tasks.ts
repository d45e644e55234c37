import type { Db } from '../db.ts';
import { CONSOLE_TASK_COLUMNS, toConsoleTaskRow } from './console-task-row.ts';
import type { ConsoleTaskRow } from './console-types.ts';

/**
 * The tasks of one context (a multi-task conversation), every visibility, for the console's
 * threads view: the `limit` most recently active by tasks_context, returned oldest first so the
 * columns read left to right in the order the tasks were created.
 */
export async function listContextTasks(
  db: Db,
  tenantId: string,
  contextId: string,
  limit: number,
): Promise<ConsoleTaskRow[]> {
  const rows = await db
    .selectFrom('tasks')
    .select(CONSOLE_TASK_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('context_id', '=', contextId)
    .orderBy('status_timestamp', 'desc')
    .limit(limit)
    .execute();
  return rows
    .map(toConsoleTaskRow)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
}
