import type { Message } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { isTaskId } from '../tasks/task-row.ts';
import type { StoredMessage } from './console-types.ts';

/**
 * One task's history with the time each message was stored (getHistory returns wire Messages,
 * which carry no time), after `afterPosition`, oldest first, at most `limit`.
 */
export async function listTaskMessages(
  db: Db,
  tenantId: string,
  taskId: string,
  { afterPosition = -1, limit = 500 }: { afterPosition?: number; limit?: number } = {},
): Promise<StoredMessage[]> {
  if (!isTaskId(taskId)) return [];
  const rows = await db
    .selectFrom('task_messages')
    .select(['position', 'message', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where('position', '>', afterPosition)
    .orderBy('position')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ position: r.position, message: r.message as Message, createdAt: r.created_at }));
}
