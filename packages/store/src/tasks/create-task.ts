import { TaskState } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { createPushConfig } from '../push-configs/create-push-config.ts';
import type { SecretBox } from '../secret-box.ts';
import type { CreateTaskInput, CreateTaskResult } from '../task-store.ts';
import { appendEvent } from './append-event.ts';
import { now } from './sql-time.ts';
import { jsonb, toTaskRecord } from './task-row.ts';

/**
 * Creates a task (version 1, SUBMITTED) with its first message, event 1 and optional push config,
 * or returns the task an earlier send with the same messageId created (ARCHITECTURE.md §3 rule 5).
 *
 * The idempotency key is claimed first with ON CONFLICT DO NOTHING: a concurrent duplicate blocks
 * on the unique index until the first transaction ends, then sees the committed key and creates
 * nothing. If the first one rolls back, the duplicate's insert goes through and it creates the task.
 */
export async function createTask(
  db: Db,
  secrets: SecretBox | undefined,
  input: CreateTaskInput,
): Promise<CreateTaskResult> {
  return db.transaction().execute(async (tx) => {
    const claimed = await tx
      .insertInto('idempotency_keys')
      .values({
        tenant_id: input.tenantId,
        message_id: input.message.messageId,
        principal: input.owner,
        task_id: input.id,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'message_id']).doNothing())
      .returning('task_id')
      .executeTakeFirst();
    if (!claimed) {
      const seen = await tx
        .selectFrom('idempotency_keys')
        .select(['task_id', 'principal'])
        .where('tenant_id', '=', input.tenantId)
        .where('message_id', '=', input.message.messageId)
        .executeTakeFirstOrThrow();
      return { created: false, taskId: seen.task_id, principal: seen.principal };
    }

    const row = await tx
      .insertInto('tasks')
      .values({
        tenant_id: input.tenantId,
        id: input.id,
        context_id: input.contextId,
        agent_id: input.agentId,
        owner: input.owner,
        visibility: input.visibility,
        state: TaskState.SUBMITTED,
        version: 1,
        status_timestamp: now(),
        metadata: input.metadata ? jsonb(input.metadata) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await tx
      .insertInto('task_messages')
      .values({ tenant_id: input.tenantId, task_id: input.id, position: 0, message: jsonb(input.message) })
      .execute();
    // The config goes in before the event so that event 1 already gets its delivery row.
    if (input.pushConfig) await createPushConfig(tx, secrets, input.tenantId, input.id, input.pushConfig);
    await appendEvent(tx, {
      tenantId: input.tenantId,
      taskId: input.id,
      seq: 1,
      event: input.event,
      visibility: input.visibility,
    });
    return { created: true, task: toTaskRecord(row) };
  });
}
