import type { Message } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { jsonb } from './task-row.ts';

/**
 * Appends a message at the next history position. Reading max(position) is safe without a lock:
 * callers run it after their guarded UPDATE, whose row lock serialises every writer of the task.
 */
export async function appendHistoryMessage(
  tx: Db,
  tenantId: string,
  taskId: string,
  message: Message,
): Promise<void> {
  await tx
    .insertInto('task_messages')
    .columns(['tenant_id', 'task_id', 'position', 'message'])
    .expression((eb) =>
      eb
        .selectFrom('task_messages')
        .select((e) => [
          e.val(tenantId).as('tenant_id'),
          e.cast<string>(e.val(taskId), 'uuid').as('task_id'),
          e(e.fn.coalesce(e.fn.max('position'), e.lit(-1)), '+', 1).as('position'),
          e.cast<string>(e.val(jsonb(message)), 'jsonb').as('message'),
        ])
        .where('tenant_id', '=', tenantId)
        .where('task_id', '=', taskId),
    )
    .execute();
}
