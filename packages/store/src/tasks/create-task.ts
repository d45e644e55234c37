import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import { cachedStatement, type ValueOf } from '../cached-statement.ts';
import type { Db } from '../db.ts';
import { createPushConfig } from '../push-configs/create-push-config.ts';
import type { SecretBox } from '../secret-box.ts';
import type { CreateTaskInput, CreateTaskResult } from '../task-store.ts';
import { eventKind } from './append-event.ts';
import { insertPushDeliveries } from './insert-push-deliveries.ts';
import { stampStatus, statusNow } from './status-time.ts';
import { jsonb, toTaskRecord, type TaskRow } from './task-row.ts';

/**
 * Creates a task (version 1, SUBMITTED) with its first message, event 1 and optional push config,
 * or returns the task an earlier send with the same messageId created (ARCHITECTURE.md §3 rule 5).
 *
 * The idempotency key is claimed with ON CONFLICT DO NOTHING: a concurrent duplicate blocks on the
 * unique index until the first statement's transaction ends, then sees the committed key and
 * creates nothing. If the first one rolls back, the duplicate's insert goes through and it creates
 * the task.
 */
export async function createTask(
  db: Db,
  secrets: SecretBox | undefined,
  input: CreateTaskInput,
): Promise<CreateTaskResult> {
  if (input.pushConfig) return createTaskWithPushConfig(db, secrets, input);
  const [row] = await insertTask.rows(db, input);
  // Without a push config in the request the new task has none: nothing to deliver yet.
  if (row) return { created: true, task: { ...toTaskRecord(row as TaskRow), pushDue: false } };
  return earlierSend(db, input);
}

/**
 * The common path in ONE statement (one round trip): the key, the task, its first message and
 * event 1 are data-modifying CTEs chained on the key's insert, so a duplicate messageId (the key
 * insert does nothing) inserts nothing else. A new task has no push configs yet, so event 1 has
 * no outbox rows to write.
 */
const insertTask = cachedStatement<CreateTaskInput, TaskRow>({
  name: 'create-task',
  shape: () => 'one',
  build: (db, _input, p) => insertTaskStatement(db, p).selectFrom('task').selectAll(),
});

function insertTaskStatement(db: Db, p: ValueOf<CreateTaskInput>) {
  return db
    .with('key', (qc) =>
      qc
        .insertInto('idempotency_keys')
        .values({
          tenant_id: p((i) => i.tenantId),
          message_id: p((i) => idempotencyKeyOf(i)),
          principal: p((i) => i.owner),
          task_id: p((i) => i.id),
        })
        .onConflict((oc) => oc.columns(['tenant_id', 'message_id']).doNothing())
        .returning(['tenant_id', 'task_id']),
    )
    .with('task', (qc) =>
      qc
        .insertInto('tasks')
        .columns([
          'tenant_id',
          'id',
          'context_id',
          'agent_id',
          'owner',
          'visibility',
          'state',
          'version',
          'status_timestamp',
          'metadata',
          'trace_context',
          'accepted_output_modes',
        ])
        .expression((eb) =>
          eb
            .selectFrom('key')
            .select((e) => [
              'key.tenant_id',
              'key.task_id',
              e.val(p((i) => i.contextId)).as('context_id'),
              e.val(p((i) => i.agentId)).as('agent_id'),
              e.val(p((i) => i.owner)).as('owner'),
              e.val(p((i) => i.visibility)).as('visibility'),
              e.val(TaskState.SUBMITTED).as('state'),
              e.lit(1).as('version'),
              statusNow().as('status_timestamp'),
              e
                .cast<string>(e.val(p((i) => (i.metadata ? jsonb(i.metadata) : null))), 'jsonb')
                .as('metadata'),
              e
                .cast<string>(
                  e.val(p((i) => (i.traceContext?.traceparent ? jsonb(i.traceContext) : null))),
                  'jsonb',
                )
                .as('trace_context'),
              e
                .cast<string>(
                  e.val(p((i) => (i.acceptedOutputModes?.length ? jsonb(i.acceptedOutputModes) : null))),
                  'jsonb',
                )
                .as('accepted_output_modes'),
            ]),
        )
        .returningAll(),
    )
    .with('msg', (qc) =>
      qc
        .insertInto('task_messages')
        .columns(['tenant_id', 'task_id', 'position', 'message'])
        .expression((eb) =>
          eb
            .selectFrom('key')
            .select((e) => [
              'key.tenant_id',
              'key.task_id',
              e.lit(0).as('position'),
              e.cast<string>(e.val(p((i) => jsonb(i.message))), 'jsonb').as('message'),
            ]),
        ),
    )
    .with('ev', (qc) =>
      qc
        .insertInto('task_events')
        .columns(['tenant_id', 'task_id', 'seq', 'kind', 'payload'])
        .expression((eb) =>
          eb
            .selectFrom('key')
            .select((e) => [
              'key.tenant_id',
              'key.task_id',
              e.lit(1).as('seq'),
              e.val(p((i) => eventKind(i.event))).as('kind'),
              stampStatus(sql`${p((i) => jsonb(i.event))}::jsonb`, statusNow()).as('payload'),
            ]),
        ),
    );
}

/** The messageId was seen before: the task that earlier send created, whoever owns it. */
export async function earlierSend(db: Db, input: CreateTaskInput): Promise<CreateTaskResult> {
  const seen = await db
    .selectFrom('idempotency_keys')
    .select(['task_id', 'principal'])
    .where('tenant_id', '=', input.tenantId)
    .where('message_id', '=', idempotencyKeyOf(input))
    .executeTakeFirstOrThrow();
  return { created: false, taskId: seen.task_id, principal: seen.principal };
}

/** With a push config: a transaction, so event 1 gets its outbox row from the new config. */
async function createTaskWithPushConfig(
  db: Db,
  secrets: SecretBox | undefined,
  input: CreateTaskInput,
): Promise<CreateTaskResult> {
  return db.transaction().execute(async (tx) => {
    const [row] = await insertTask.rows(tx, input);
    if (!row) return earlierSend(tx, input);
    if (input.pushConfig) await createPushConfig(tx, secrets, input.tenantId, input.id, input.pushConfig);
    if (input.visibility === 'task') await insertPushDeliveries(tx, input.tenantId, input.id, 1);
    return { created: true, task: { ...toTaskRecord(row as TaskRow), pushDue: input.visibility === 'task' } };
  });
}

/** What the idempotency_keys row is keyed by: the messageId unless the engine chose a key. */
export function idempotencyKeyOf(input: CreateTaskInput): string {
  return input.idempotencyKey ?? input.message.messageId;
}
