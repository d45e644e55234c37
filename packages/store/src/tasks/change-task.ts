import type { UpdateObject } from 'kysely';
import { cachedStatement, type ValueOf } from '../cached-statement.ts';
import type { Db } from '../db.ts';
import type { Database } from '../database.ts';
import { ConflictError } from '../errors.ts';
import type { ArtifactChunkInput, ChangeTaskInput, TaskPatch, TaskRecord } from '../task-store.ts';
import { sql } from 'kysely';
import { eventKind } from './append-event.ts';
import { now } from './sql-time.ts';
import { changesStatus, stampStatus, statusAfterPrevious } from './status-time.ts';
import { withLegalEdges } from './legal-edges.ts';
import { isTaskId, jsonb, toTaskRecord, type TaskRow } from './task-row.ts';

/** The SET list for a patch: only the fields it names; the JSON columns are replaced whole, never merged. */
function patchColumns(patch: TaskPatch, p: ValueOf<ChangeTaskInput>): UpdateObject<Database, 'tasks'> {
  const set: UpdateObject<Database, 'tasks'> = {};
  const json = (v: unknown) => (v === null ? null : jsonb(v));
  if (patch.state !== undefined) set.state = p((i) => i.patch.state!);
  if (patch.visibility !== undefined) set.visibility = p((i) => i.patch.visibility!);
  if (patch.statusMessage !== undefined) set.status_message = p((i) => json(i.patch.statusMessage));
  // TaskStatus.timestamp is the time of the last status change (digest §2.1), and ListTasks sorts on it.
  if (changesStatus(patch)) set.status_timestamp = statusAfterPrevious();
  if (patch.reply !== undefined) set.reply = p((i) => json(i.patch.reply));
  if (patch.metadata !== undefined) set.metadata = p((i) => json(i.patch.metadata));
  if (patch.lastError !== undefined) set.last_error = p((i) => i.patch.lastError ?? null);
  if (patch.clearLease) Object.assign(set, { lease_owner: null, lease_expires_at: null });
  if (patch.runAfterMs !== undefined)
    set.run_after = sql<Date>`now() + (${p((i) => i.patch.runAfterMs!)}::double precision * interval '1 millisecond')`;
  if (patch.resetAttempts) set.attempts = 0;
  return set;
}

/** What changes the statement's text; patchColumns and changeStatement branch on nothing else. */
function changeShape(input: ChangeTaskInput): string {
  const { patch } = input;
  const fields = (
    ['state', 'visibility', 'statusMessage', 'reply', 'metadata', 'lastError', 'runAfterMs'] as const
  )
    .filter((k) => patch[k] !== undefined)
    .join(',');
  return [
    fields,
    patch.clearLease ? 'clear' : '',
    patch.resetAttempts ? 'reset' : '',
    input.expectedVersion === 'any' ? 'any' : 'v',
    input.fromStates ? `s${input.fromStates.length}` : '',
    input.leaseOwner !== undefined ? 'lease' : '',
    input.precededBy ? 'pre' : '',
    input.appendMessages?.length ? `msg${input.appendMessages.length}` : '',
    chunkOf(input) ? `chunk${chunkBack(input)}` : '',
  ].join('|');
}

/** The events the change appends, oldest first: a preceding chunk's event, then its own. */
const eventsOf = (input: ChangeTaskInput) =>
  input.precededBy ? [input.precededBy.event, input.event] : [input.event];

/** The artifact chunk the change stores, if any: its own, or the preceding one's. */
const chunkOf = (input: ChangeTaskInput): ArtifactChunkInput | undefined =>
  input.artifactChunk ?? input.precededBy?.artifactChunk;

/** How far below the new version the chunk's seq is: the preceding event's, or the change's own. */
const chunkBack = (input: ChangeTaskInput) => (input.precededBy && !input.artifactChunk ? 1 : 0);

const changeStatementCache = cachedStatement({
  name: 'change-task',
  shape: changeShape,
  build: (db, input: ChangeTaskInput, p) => changeStatement(db, input, p),
});

/**
 * One guarded UPDATE (compare-and-set on version, plus the state and lease fences the writer asks
 * for) and, in the same transaction, the event at seq = new version, the history message, the
 * artifact chunk and the push outbox rows (ARCHITECTURE.md §3 rules 2–4). No row → ConflictError.
 */
export async function changeTask(db: Db, change: ChangeTaskInput): Promise<TaskRecord> {
  const input = guardedChange(change);
  const [row] = await changeStatementCache.rows(db, input);
  if (!row) throw conflictOf(input);
  const { push_due, ...taskRow } = row;
  return { ...toTaskRecord(taskRow as TaskRow), pushDue: push_due };
}

/**
 * The change as the store runs it: its state guard narrowed to the legal sources of the patch's
 * state (legal-edges.ts). Throws the ConflictError the statement would answer when no row can
 * match (an illegal edge, an empty state list, a malformed id), and refuses a change that names
 * neither a version nor states to guard on, or appends messages without a version to guard on. Idempotent: the batched run endings go through it too.
 */
export function guardedChange(change: ChangeTaskInput): ChangeTaskInput {
  if (change.expectedVersion === 'any' && !change.fromStates) {
    throw new Error('changeTask without an expected version needs fromStates as its guard');
  }
  // History positions run on from the statement's snapshot, which only a version guard keeps
  // current: without one, a writer that appended meanwhile would collide on a position.
  if (change.expectedVersion === 'any' && (change.appendMessages?.length ?? 0) > 0) {
    throw new Error('changeTask that appends messages needs an expected version');
  }
  const input = withLegalEdges(change);
  if (!isTaskId(input.taskId) || input.fromStates?.length === 0) throw conflictOf(input);
  return input;
}

const conflictOf = ({ tenantId, taskId, expectedVersion }: ChangeTaskInput) =>
  new ConflictError(tenantId, taskId, expectedVersion);

/**
 * The change as one statement, one round trip: data-modifying CTEs all hang off the guarded
 * UPDATE, so when the guard matches no row nothing else is written either, and together they are
 * atomic. Its text depends on `input`'s shape only (changeShape); every value goes through `p`.
 */
function changeStatement(db: Db, input: ChangeTaskInput, p: ValueOf<ChangeTaskInput>) {
  const { expectedVersion, fromStates, leaseOwner } = input;
  const tenantId = p((i) => i.tenantId);
  const taskId = p((i) => i.taskId);
  // Each event takes one version: a preceding chunk's event first, then the change's own.
  const events = eventsOf(input).map((_, k, all) => ({
    back: all.length - 1 - k,
    kind: p((i) => eventKind(eventsOf(i)[k]!)),
    payload: p((i) => jsonb(eventsOf(i)[k])),
  }));
  const steps = events.length;
  const seqOf = (back: number) => sql<number>`upd.version - ${back}::integer`;
  const query = db.with('upd', (qc) => {
    let update = qc
      .updateTable('tasks')
      .set({
        ...patchColumns(input.patch, p),
        version: (eb) => eb('version', '+', steps),
        updated_at: now(),
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', taskId);
    if (expectedVersion !== 'any')
      update = update.where(
        'version',
        '=',
        p((i) => i.expectedVersion as number),
      );
    if (fromStates)
      update = update.where(
        'state',
        'in',
        fromStates.map((_, k) => p((i) => i.fromStates![k]!)),
      );
    if (leaseOwner !== undefined)
      update = update.where(
        'lease_owner',
        '=',
        p((i) => i.leaseOwner!),
      );
    return update.returningAll();
  });
  const withEvent = query
    .with('ev', (qc) =>
      qc
        .insertInto('task_events')
        .columns(['tenant_id', 'task_id', 'seq', 'kind', 'payload'])
        .expression((eb) => {
          const row = ({ back, kind, payload }: (typeof events)[number]) =>
            eb.selectFrom('upd').select((e) => [
              'upd.tenant_id',
              'upd.id',
              seqOf(back).as('seq'),
              e.val(kind).as('kind'),
              // The change's own status event carries the time the row got (status-time.ts).
              back === 0 && changesStatus(input.patch)
                ? stampStatus(sql`${payload}::jsonb`, sql.ref('upd.status_timestamp')).as('payload')
                : e.cast<string>(e.val(payload), 'jsonb').as('payload'),
            ]);
          const [first, ...rest] = events.map(row);
          return rest.reduce((all, next) => all.unionAll(next), first!);
        }),
    )
    // ARCHITECTURE.md §7: the outbox rows are written with the event, only for visible tasks.
    .with('deliveries', (qc) =>
      qc
        .insertInto('push_deliveries')
        .columns(['tenant_id', 'task_id', 'config_id', 'seq'])
        .expression((eb) => {
          const rows = events.map(({ back }) =>
            eb
              .selectFrom('upd')
              // The configs as they are once the row is held, not as this statement's snapshot
              // saw them (000011_task_push_config_ids.sql).
              .crossJoinLateral(
                sql<{ config_id: string }>`task_push_config_ids(upd.tenant_id, upd.id)`.as('pc'),
              )
              .select(['upd.tenant_id', 'upd.id', 'pc.config_id', seqOf(back).as('seq')])
              .where('upd.visibility', '=', sql.lit('task')),
          );
          const [first, ...rest] = rows;
          return rest.reduce((all, next) => all.unionAll(next), first!);
        })
        .returning('push_deliveries.seq'),
    );
  let full = withEvent;
  const appended = input.appendMessages ?? [];
  if (appended.length > 0) {
    full = full.with('msg', (qc) =>
      qc
        .insertInto('task_messages')
        .columns(['tenant_id', 'task_id', 'position', 'message'])
        .expression((eb) => {
          const row = (k: number) =>
            eb.selectFrom('upd').select((e) => [
              'upd.tenant_id',
              'upd.id',
              // Safe without a lock: the UPDATE's row lock serialises every writer of the task, and
              // a writer that committed meanwhile bumped the version, so this UPDATE matched
              // nothing. Every row reads the statement's snapshot, so positions run on from it.
              e(
                e.fn.coalesce(
                  e
                    .selectFrom('task_messages')
                    .select((m) => m.fn.max('position').as('p'))
                    .where('tenant_id', '=', tenantId)
                    .where('task_id', '=', taskId),
                  e.lit(-1),
                ),
                '+',
                e.lit(k + 1),
              ).as('position'),
              e.cast<string>(e.val(p((i) => jsonb(i.appendMessages![k]))), 'jsonb').as('message'),
            ]);
          const [first, ...rest] = appended.map((_, k) => row(k));
          return rest.reduce((all, next) => all.unionAll(next), first!);
        }),
    ) as unknown as typeof withEvent;
  }
  if (chunkOf(input)) {
    const c = <T>(read: (chunk: ArtifactChunkInput) => T) => p((i) => read(chunkOf(i)!));
    // The chunk's seq is its event's: the change's own, or the preceding one's.
    const chunkSeq = seqOf(chunkBack(input));
    full = full.with('chunk', (qc) =>
      qc
        .insertInto('artifact_chunks')
        .columns([
          'tenant_id',
          'task_id',
          'seq',
          'artifact_id',
          'append',
          'last_chunk',
          'name',
          'description',
          'parts',
          'metadata',
          'extensions',
        ])
        .expression((eb) =>
          eb
            .selectFrom('upd')
            .select((e) => [
              'upd.tenant_id',
              'upd.id',
              chunkSeq.as('seq'),
              e.val(c((k) => k.artifactId)).as('artifact_id'),
              e.val(c((k) => k.append)).as('append'),
              e.val(c((k) => k.lastChunk)).as('last_chunk'),
              e.val(c((k) => k.name ?? null)).as('name'),
              e.val(c((k) => k.description ?? null)).as('description'),
              e.cast<string>(e.val(c((k) => jsonb(k.parts))), 'jsonb').as('parts'),
              e
                .cast<string>(e.val(c((k) => (k.metadata ? jsonb(k.metadata) : null))), 'jsonb')
                .as('metadata'),
              e
                .cast<string>(e.val(c((k) => (k.extensions ? jsonb(k.extensions) : null))), 'jsonb')
                .as('extensions'),
            ]),
        ),
    ) as unknown as typeof withEvent;
  }
  return full
    .selectFrom('upd')
    .selectAll()
    .select(sql<boolean>`exists (select 1 from deliveries)`.as('push_due'));
}
