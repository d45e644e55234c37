import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { decodePageToken, encodePageToken } from '../tasks/page-token.ts';
import { isTaskId } from '../tasks/task-row.ts';
import { toPushConfigView } from './push-config-view.ts';

/** The spec names no default for this list (digest §2.4); 100 is the ceiling ListTasks uses too. */
export const DEFAULT_PUSH_CONFIG_PAGE_SIZE = 100;

/** A task's configs in id order, keyset-paged, secrets redacted. */
export async function listPushConfigs(
  db: Db,
  tenantId: string,
  taskId: string,
  page: { pageSize: number; pageToken?: string },
): Promise<{ configs: TaskPushNotificationConfig[]; nextPageToken: string }> {
  // 0 is the proto default of this implicit-presence field: it means "server's choice".
  const pageSize = page.pageSize > 0 ? page.pageSize : DEFAULT_PUSH_CONFIG_PAGE_SIZE;
  const after = page.pageToken ? decodePageToken(page.pageToken, { i: /^.+$/s }).i : undefined;
  if (!isTaskId(taskId)) return { configs: [], nextPageToken: '' };
  const rows = await db
    .selectFrom('push_configs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .$if(after !== undefined, (q) => q.where('id', '>', after ?? ''))
    .orderBy('id')
    .limit(pageSize + 1)
    .execute();
  const configs = rows.slice(0, pageSize);
  const last = configs.at(-1);
  return {
    configs: configs.map(toPushConfigView),
    nextPageToken: rows.length > pageSize && last ? encodePageToken({ i: last.id }) : '',
  };
}
