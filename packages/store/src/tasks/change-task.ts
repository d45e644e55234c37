import type { UpdateObject } from 'kysely';
import type { Db } from '../db.ts';
import type { Database } from '../database.ts';
import { ConflictError } from '../errors.ts';
import type { ChangeTaskInput, TaskPatch, TaskRecord } from '../task-store.ts';
import { appendEvent } from './append-event.ts';
import { insertArtifactChunk } from './insert-artifact-chunk.ts';
import { appendHistoryMessage } from './append-history-message.ts';
import { now } from './sql-time.ts';
import { isTaskId, jsonb, toTaskRecord } from './task-row.ts';

/** The SET list for a patch: only the fields it names; the JSON columns are replaced whole, never merged. */
function patchColumns(patch: TaskPatch): UpdateObject<Database, 'tasks'> {
  const set: UpdateObject<Database, 'tasks'> = {};
  if (patch.state !== undefined) set.state = patch.state;
  if (patch.visibility !== undefined) set.visibility = patch.visibility;
  if (patch.statusMessage !== undefined)
    set.status_message = patch.statusMessage === null ? null : jsonb(patch.statusMessage);
  // TaskStatus.timestamp is the time of the last status change (digest §2.1), and ListTasks sorts on it.
  if (patch.state !== undefined || patch.statusMessage !== undefined) set.status_timestamp = now();
  if (patch.reply !== undefined) set.reply = patch.reply === null ? null : jsonb(patch.reply);
  if (patch.metadata !== undefined) set.metadata = patch.metadata === null ? null : jsonb(patch.metadata);
  if (patch.lastError !== undefined) set.last_error = patch.lastError;
  if (patch.clearLease) Object.assign(set, { lease_owner: null, lease_expires_at: null });
  if (patch.runAfter !== undefined) set.run_after = patch.runAfter;
  if (patch.resetAttempts) set.attempts = 0;
  return set;
}

/**
 * One guarded UPDATE (compare-and-set on version, plus the state and lease fences the writer asks
 * for) and, in the same transaction, the event at seq = new version, the history message, the
 * artifact chunk and the push outbox rows (ARCHITECTURE.md §3 rules 2–4). No row → ConflictError.
 */
export async function changeTask(db: Db, input: ChangeTaskInput): Promise<TaskRecord> {
  const { tenantId, taskId, expectedVersion, fromStates, leaseOwner } = input;
  const conflict = () => new ConflictError(tenantId, taskId, expectedVersion);
  // An empty state list or a malformed id can match no row: answer as the guard would.
  if (!isTaskId(taskId) || fromStates?.length === 0) throw conflict();
  return db.transaction().execute(async (tx) => {
    let update = tx
      .updateTable('tasks')
      .set({ ...patchColumns(input.patch), version: (eb) => eb('version', '+', 1), updated_at: now() })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', taskId)
      .where('version', '=', expectedVersion);
    if (fromStates) update = update.where('state', 'in', fromStates);
    if (leaseOwner !== undefined) update = update.where('lease_owner', '=', leaseOwner);
    const row = await update.returningAll().executeTakeFirst();
    if (!row) throw conflict();

    const seq = row.version;
    if (input.appendMessage) await appendHistoryMessage(tx, tenantId, taskId, input.appendMessage);
    if (input.artifactChunk) await insertArtifactChunk(tx, tenantId, taskId, seq, input.artifactChunk);
    await appendEvent(tx, { tenantId, taskId, seq, event: input.event, visibility: row.visibility });
    return toTaskRecord(row);
  });
}
