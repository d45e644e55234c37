import type { Db } from '../db.ts';
import { isTaskId } from '../tasks/task-row.ts';

/**
 * Idempotent delete: false when there was nothing to delete. The config's pending deliveries go
 * with it (ON DELETE CASCADE), so the pusher never posts to a webhook the client removed.
 */
export async function deletePushConfig(
  db: Db,
  tenantId: string,
  taskId: string,
  id: string,
): Promise<boolean> {
  if (!isTaskId(taskId)) return false;
  const result = await db
    .deleteFrom('push_configs')
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
