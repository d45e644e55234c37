import type { Message } from '@switchyard/protocol';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isTaskId } from './task-row.ts';

/**
 * The history of several tasks in one query (a ListTasks page must not cost a query per task).
 * With `historyLength` N only the newest N per task leave the database (digest §7.3); 0 reads
 * nothing. With `maxBytes`, only the newest of those whose JSON fits in it (view-bytes.ts), for a
 * task too big for its page. Each list is in conversation order.
 */
export async function loadHistories(
  db: Db,
  tenantId: string,
  taskIds: readonly string[],
  historyLength?: number,
  maxBytes?: number,
): Promise<Map<string, Message[]>> {
  const out = new Map<string, Message[]>();
  const ids = taskIds.filter(isTaskId);
  if (ids.length === 0 || historyLength === 0) return out;
  const newest = db
    .selectFrom((eb) =>
      eb
        .selectFrom('task_messages')
        .select((e) => [
          'task_id',
          'position',
          'message',
          e.fn
            .agg<number>('row_number')
            .over((ob) => ob.partitionBy('task_id').orderBy('position', 'desc'))
            .as('from_end'),
        ])
        .where('tenant_id', '=', tenantId)
        .where('task_id', 'in', ids)
        .as('m'),
    )
    .select(['m.task_id', 'm.position', 'm.message'])
    .$if(historyLength !== undefined, (q) => q.where('m.from_end', '<=', historyLength ?? 0));
  // Sized after the historyLength cut, so a long history's older messages are not rendered.
  const fitting = db
    .selectFrom(
      newest
        .select(
          sql<number>`sum(octet_length(m.message::text)) over (
            partition by m.task_id order by m.position desc rows unbounded preceding)`.as('bytes_from_end'),
        )
        .as('s'),
    )
    .select(['s.task_id', 's.position', 's.message'])
    .where('s.bytes_from_end', '<=', maxBytes ?? 0);
  const rows =
    maxBytes === undefined
      ? await newest.orderBy('m.task_id').orderBy('m.position').execute()
      : await fitting.orderBy('s.task_id').orderBy('s.position').execute();
  for (const row of rows) {
    const list = out.get(row.task_id);
    if (list) list.push(row.message as Message);
    else out.set(row.task_id, [row.message as Message]);
  }
  return out;
}

/** One task's whole history, oldest first. */
export async function getHistory(db: Db, tenantId: string, taskId: string): Promise<Message[]> {
  return (await loadHistories(db, tenantId, [taskId])).get(taskId) ?? [];
}
