import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { SCHEMA_COLUMNS } from '../schema-columns.ts';
import { asError } from '../coalesced-calls.ts';
import { ConflictError } from '../errors.ts';
import { changeTask } from './change-task.ts';
import type { ChangeTaskInput, TaskRecord } from '../task-store.ts';
import { eventKind } from './append-event.ts';
import { stampStatus, statusAfterPrevious } from './status-time.ts';
import { isTaskId, jsonb, toTaskRecord, type TaskRow } from './task-row.ts';

/** The patch fields a run's ending sets; anything else goes through changeTask alone. */
const ENDING_FIELDS = new Set(['state', 'statusMessage', 'clearLease', 'visibility']);

/**
 * Whether a change is a run's ending as a worker writes it (run-context.ts `end`): the fenced CAS
 * of a WORKING task to a new state with its status message (or none), the lease cleared, the task
 * made visible if it was pending, and optionally the run's last artifact chunk written first
 * (`precededBy`). Those are the changes endRuns batches; they share one statement text.
 */
export function isRunEnding(input: ChangeTaskInput): boolean {
  const { patch } = input;
  return (
    input.expectedVersion !== 'any' &&
    input.fromStates?.length === 1 &&
    input.fromStates[0] === TaskState.WORKING &&
    input.leaseOwner !== undefined &&
    !input.appendMessages?.length &&
    input.registerPushConfig === undefined &&
    input.artifactChunk === undefined &&
    patch.state !== undefined &&
    // Set or cleared (null), never left as it was: the batched statement always writes it.
    patch.statusMessage !== undefined &&
    patch.clearLease === true &&
    Object.entries(patch).every(([k, v]) => v === undefined || ENDING_FIELDS.has(k))
  );
}

/**
 * Endings that may go in one statement: same tenant (its partition). Each carries its own lease
 * owner, since every claim leases under a token of its own (claim-task.ts).
 */
export const runEndingBatchKey = (input: ChangeTaskInput): string => JSON.stringify([input.tenantId]);

/**
 * Several run endings (isRunEnding, one runEndingBatchKey) in one statement: for each, what
 * changeTask would write for it alone (the guarded UPDATE, the events at the new versions, the
 * chunk, the push outbox rows), and its TaskRecord, or a ConflictError where its guard does not
 * hold. Each task's writes stand or fall with its own guard; the statement is one transaction.
 *
 * PostgresTaskStore coalesces a worker's concurrent endings into these (group commit), as it does
 * its claims (claim-task.ts, which explains the tenant parameter and the `= ANY` of the ids).
 * Rows are locked in id order, as the claim does, so a batch never deadlocks with another batch.
 * Callers send at most one change per task (a run's writes are sequential).
 */
export async function endRuns(
  db: Db,
  inputs: readonly ChangeTaskInput[],
): Promise<Array<TaskRecord | ConflictError>> {
  const first = inputs[0];
  if (!first) return [];
  const ids = inputs.map((i) => i.taskId.toLowerCase());
  if (
    inputs.some((i) => !isRunEnding(i) || runEndingBatchKey(i) !== runEndingBatchKey(first)) ||
    new Set(ids).size !== ids.length
  )
    throw new Error('endRuns: every change must be a run ending of one tenant, one per task');
  const conflict = (i: ChangeTaskInput) => new ConflictError(i.tenantId, i.taskId, i.expectedVersion);
  const valid = inputs.filter((i) => isTaskId(i.taskId));
  const byId = new Map<string, TaskRecord>();
  if (valid.length > 0) {
    const { rows } = await endRunsStatement(first, valid).execute(db);
    for (const { push_due, ...row } of rows) byId.set(row.id, { ...toTaskRecord(row), pushDue: push_due });
  }
  return inputs.map((i, k) => byId.get(ids[k]!) ?? conflict(i));
}

/**
 * The batch runner PostgresTaskStore coalesces run endings with: one endRuns statement, and a
 * second ending of a task already in it (two runs' writes that met) after it, alone, as changeTask.
 * Each answer is the task's record or the Error its own write met.
 */
export async function endRunBatch(
  db: Db,
  inputs: readonly ChangeTaskInput[],
): Promise<Array<TaskRecord | Error>> {
  const seen = new Set<string>();
  const firsts: number[] = [];
  const again: number[] = [];
  inputs.forEach((input, k) => {
    const id = input.taskId.toLowerCase();
    (seen.has(id) ? again : firsts).push(k);
    seen.add(id);
  });
  const results: Array<TaskRecord | Error> = new Array(inputs.length);
  const batched = await endRuns(
    db,
    firsts.map((k) => inputs[k]!),
  );
  firsts.forEach((k, j) => (results[k] = batched[j]!));
  for (const k of again) results[k] = await changeTask(db, inputs[k]!).catch(asError);
  return results;
}

function endRunsStatement(first: ChangeTaskInput, inputs: readonly ChangeTaskInput[]) {
  const col = <T>(read: (i: ChangeTaskInput) => T) => inputs.map(read);
  const chunk = (i: ChangeTaskInput) => i.precededBy?.artifactChunk;
  const ids = col((i) => i.taskId);
  return sql<TaskRow & { push_due: boolean }>`
    WITH b AS (
      SELECT * FROM unnest(
        ${ids}::uuid[], ${col((i) => i.expectedVersion as number)}::integer[],
        ${col((i) => i.leaseOwner!)}::text[], ${col((i) => i.patch.state!)}::text[],
        ${col((i) => (i.patch.statusMessage ? jsonb(i.patch.statusMessage) : null))}::jsonb[],
        ${col((i) => i.patch.visibility ?? null)}::text[],
        ${col((i) => eventKind(i.event))}::text[], ${col((i) => jsonb(i.event))}::jsonb[],
        ${col((i) => (i.precededBy ? eventKind(i.precededBy.event) : null))}::text[],
        ${col((i) => (i.precededBy ? jsonb(i.precededBy.event) : null))}::jsonb[],
        ${col((i) => chunk(i)?.artifactId ?? null)}::text[],
        ${col((i) => chunk(i)?.append ?? null)}::boolean[],
        ${col((i) => chunk(i)?.lastChunk ?? null)}::boolean[],
        ${col((i) => chunk(i)?.name ?? null)}::text[],
        ${col((i) => chunk(i)?.description ?? null)}::text[],
        ${col((i) => (chunk(i) ? jsonb(chunk(i)!.parts) : null))}::jsonb[],
        ${col((i) => (chunk(i)?.metadata ? jsonb(chunk(i)!.metadata) : null))}::jsonb[],
        ${col((i) => (chunk(i)?.extensions ? jsonb(chunk(i)!.extensions) : null))}::jsonb[]
      ) AS b(id, expected_version, lease_owner, state, status_message, visibility, kind, payload, pre_kind,
             pre_payload, artifact_id, append, last_chunk, name, description, parts, metadata,
             extensions)
    ), locked AS (
      -- The state is checked here, on the locked row version, and not in the UPDATE's WHERE,
      -- where it would let the planner reach the rows through the state index (claim-task.ts).
      SELECT t.id, t.state = ${sql.lit(TaskState.WORKING)} AS working FROM tasks t
       WHERE t.tenant_id = ${first.tenantId} AND t.id = ANY(${ids}::uuid[])
       ORDER BY t.id
         FOR UPDATE OF t
    ), upd AS (
      UPDATE tasks SET
        state = b.state,
        status_message = b.status_message,
        status_timestamp = ${statusAfterPrevious()},
        visibility = coalesce(b.visibility, tasks.visibility),
        lease_owner = NULL,
        lease_expires_at = NULL,
        -- Each event takes one version: a preceding chunk's event first, then the ending's own.
        version = tasks.version + CASE WHEN b.pre_kind IS NULL THEN 1 ELSE 2 END,
        updated_at = now()
      FROM b JOIN locked ON locked.id = b.id
      WHERE tasks.tenant_id = ${first.tenantId} AND tasks.id = ANY(${ids}::uuid[])
        AND tasks.id = b.id AND locked.working
        AND tasks.version = b.expected_version
        AND tasks.lease_owner = b.lease_owner
      RETURNING tasks.*, b.kind, b.payload, b.pre_kind, b.pre_payload, b.artifact_id, b.append,
        b.last_chunk, b.name, b.description, b.parts, b.metadata AS chunk_metadata, b.extensions
    ), ev AS (
      INSERT INTO task_events (tenant_id, task_id, seq, kind, payload)
      SELECT tenant_id, id, version, kind, ${stampStatus(sql.ref('payload'), sql.ref('status_timestamp'))}
        FROM upd
      UNION ALL
      SELECT tenant_id, id, version - 1, pre_kind, pre_payload FROM upd WHERE pre_kind IS NOT NULL
    ), chunk AS (
      -- The chunk's seq is its event's: the preceding one's.
      INSERT INTO artifact_chunks (tenant_id, task_id, seq, artifact_id, append, last_chunk, name,
                                   description, parts, metadata, extensions)
      SELECT tenant_id, id, version - 1, artifact_id, append, last_chunk, name, description, parts,
             chunk_metadata, extensions
        FROM upd WHERE artifact_id IS NOT NULL
    ), deliveries AS (
      -- ARCHITECTURE.md §7: the outbox rows are written with the events, only for visible tasks.
      INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq)
      -- The configs as they are once the row is held, not as this statement's snapshot saw them
      -- (000011_task_push_config_ids.sql).
      SELECT upd.tenant_id, upd.id, pc.config_id, e.seq
        FROM upd
        CROSS JOIN LATERAL task_push_config_ids(upd.tenant_id, upd.id) pc
        CROSS JOIN LATERAL (SELECT upd.version AS seq
                            UNION ALL
                            SELECT upd.version - 1 WHERE upd.pre_kind IS NOT NULL) e
       WHERE upd.visibility = 'task'
      RETURNING push_deliveries.task_id
    )
    SELECT ${sql.join(SCHEMA_COLUMNS.tasks.map((c) => sql.ref(`upd.${c}`)))},
           EXISTS (SELECT 1 FROM deliveries d WHERE d.task_id = upd.id) AS push_due
      FROM upd`;
}
