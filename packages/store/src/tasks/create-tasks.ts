import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { CreateTaskInput, CreateTaskResult } from '../task-store.ts';
import { eventKind } from './append-event.ts';
import { asError } from '../coalesced-calls.ts';
import { earlierSend, idempotencyKeyOf } from './create-task.ts';
import { stampStatus, statusNow } from './status-time.ts';
import { jsonb, toTaskRecord, type TaskRow } from './task-row.ts';

/**
 * Several sends of one tenant without a push config in one statement (group commit, as the
 * worker's claims and endings: claim-task.ts, end-runs.ts; PostgresTaskStore coalesces them): for
 * each, what createTask's statement does, and its answer. Sends without a push config need no
 * transaction around the statement. A send whose messageId was seen answers with the earlier
 * send's task, read after the statement; if that read fails, only its own answer is the error.
 */
export async function createTaskBatch(
  db: Db,
  inputs: readonly CreateTaskInput[],
): Promise<Array<CreateTaskResult | Error>> {
  const first = inputs[0];
  if (!first) return [];
  if (inputs.some((i) => i.pushConfig || i.tenantId !== first.tenantId))
    throw new Error('createTaskBatch: sends of one tenant without a push config only');
  const { rows } = await createTasksStatement(first.tenantId, inputs).execute(db);
  const created = new Map(rows.map((row) => [row.id, row]));
  return Promise.all(
    inputs.map((input) => {
      const row = created.get(input.id.toLowerCase());
      // Without a push config in the request the new task has none: nothing to deliver yet.
      if (row) return { created: true as const, task: { ...toTaskRecord(row), pushDue: false } };
      return earlierSend(db, input).catch(asError);
    }),
  );
}

/**
 * The keys, the tasks, their first messages and events 1 for several sends, chained on the keys'
 * insert as in createTask: a send whose messageId was seen (before, or earlier in this very batch,
 * ON CONFLICT DO NOTHING) inserts nothing, and its caller reads the earlier send's task. The keys
 * go in messageId order (the first of a batch's duplicates wins): a key another transaction is
 * inserting makes this one wait for it, and two batches that wait on each other's keys in opposite
 * orders (retries of the same sends through two gateways) would deadlock.
 */
function createTasksStatement(tenantId: string, inputs: readonly CreateTaskInput[]) {
  const col = <T>(read: (i: CreateTaskInput) => T) => inputs.map(read);
  return sql<TaskRow>`
    WITH b AS (
      SELECT * FROM unnest(
        ${col((i) => i.id)}::uuid[], ${col((i) => idempotencyKeyOf(i))}::text[],
        ${col((i) => i.contextId)}::text[], ${col((i) => i.agentId)}::text[],
        ${col((i) => i.owner)}::text[], ${col((i) => i.visibility)}::text[],
        ${col((i) => (i.metadata ? jsonb(i.metadata) : null))}::jsonb[],
        ${col((i) => (i.traceContext?.traceparent ? jsonb(i.traceContext) : null))}::jsonb[],
        ${col((i) => (i.acceptedOutputModes?.length ? jsonb(i.acceptedOutputModes) : null))}::jsonb[],
        ${col((i) => jsonb(i.message))}::jsonb[],
        ${col((i) => eventKind(i.event))}::text[], ${col((i) => jsonb(i.event))}::jsonb[]
      ) WITH ORDINALITY AS b(id, message_id, context_id, agent_id, owner, visibility, metadata,
                             trace_context, accepted_output_modes, message, kind, payload, ord)
    ), key AS (
      INSERT INTO idempotency_keys (tenant_id, message_id, principal, task_id)
      SELECT ${tenantId}, message_id, owner, id FROM b ORDER BY message_id, ord
      ON CONFLICT (tenant_id, message_id) DO NOTHING
      RETURNING task_id
    ), new AS (
      SELECT b.* FROM b JOIN key ON key.task_id = b.id
    ), task AS (
      INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version,
                         status_timestamp, metadata, trace_context, accepted_output_modes)
      SELECT ${tenantId}, id, context_id, agent_id, owner, visibility,
             ${sql.lit(TaskState.SUBMITTED)}, 1, ${statusNow()}, metadata, trace_context, accepted_output_modes
        FROM new
      RETURNING *
    ), msg AS (
      INSERT INTO task_messages (tenant_id, task_id, position, message)
      SELECT ${tenantId}, id, 0, message FROM new
    ), ev AS (
      INSERT INTO task_events (tenant_id, task_id, seq, kind, payload)
      SELECT ${tenantId}, id, 1, kind, ${stampStatus(sql.ref('payload'), statusNow())} FROM new
    )
    SELECT * FROM task`;
}
