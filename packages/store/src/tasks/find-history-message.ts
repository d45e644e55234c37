import type { Message } from '@switchyard/protocol';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isTaskId } from './task-row.ts';

/**
 * The task's history message with this messageId, or null: what a retried send is compared with.
 * One row leaves Postgres, not the whole history: a task's history has no size limit (every turn
 * adds a message of up to the request limit), and a retry of its hundredth turn used to load all
 * hundred into the gateway to find one.
 */
export async function findHistoryMessage(
  db: Db,
  tenantId: string,
  taskId: string,
  messageId: string,
): Promise<Message | null> {
  if (!isTaskId(taskId)) return null;
  const row = await db
    .selectFrom('task_messages')
    .select('message')
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where(sql<string>`message->>'messageId'`, '=', messageId)
    .orderBy('position')
    .limit(1)
    .executeTakeFirst();
  return (row?.message as Message | undefined) ?? null;
}
