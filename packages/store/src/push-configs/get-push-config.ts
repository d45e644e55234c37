import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { isTaskId } from '../tasks/task-row.ts';
import { toPushConfigView } from './push-config-view.ts';

/** One config of a task, secrets redacted; null when the tenant has no such config. */
export async function getPushConfig(
  db: Db,
  tenantId: string,
  taskId: string,
  id: string,
): Promise<TaskPushNotificationConfig | null> {
  if (!isTaskId(taskId)) return null;
  const row = await db
    .selectFrom('push_configs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toPushConfigView(row) : null;
}
