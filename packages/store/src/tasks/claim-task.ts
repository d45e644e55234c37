import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import { runInputsSelection, toRunInputs } from './load-run-inputs.ts';
import { cachedStatement, type ValueOf } from '../cached-statement.ts';
import type { Db } from '../db.ts';
import type { ClaimInput, ClaimResult } from '../task-store.ts';
import { msFromNow, now } from './sql-time.ts';
import { isTaskId, toTaskRecord, type TaskRow } from './task-row.ts';

const LIVE = [TaskState.SUBMITTED, TaskState.WORKING];

/**
 * Leases a live, due, unleased (or lapsed) task to `workerId` in one guarded UPDATE
 * (ARCHITECTURE.md §3 rule 4). A SUBMITTED task becomes WORKING with a new version and a
 * statusUpdate event; re-claiming a WORKING task (after a lapsed lease) changes no version, so the
 * previous owner's next CAS fails on lease_owner instead. Null when the guard does not hold.
 *
 * `prev` locks the row and reads its state before the UPDATE: Postgres 15 has no RETURNING old.*,
 * and the lock makes prev.state the state of exactly the row version the UPDATE re-checks.
 */
export async function claimTask(db: Db, input: ClaimInput): Promise<ClaimResult | null> {
  if (!isTaskId(input.taskId)) return null;
  const [row] = await claim.rows(db, input);
  if (!row) return null;
  const { prev_state, push_due, history, chunks, generation_start, ...taskRow } = row;
  return {
    task: { ...toTaskRecord(taskRow as TaskRow), pushDue: push_due },
    movedToWorking: prev_state === TaskState.SUBMITTED,
    inputs: toRunInputs({ history, chunks, generation_start }),
  };
}

const claim = cachedStatement({
  name: 'claim-task',
  shape: () => 'one',
  build: (db, _input: ClaimInput, p) => claimStatement(db, p),
});

function claimStatement(db: Db, p: ValueOf<ClaimInput>) {
  const tenantId = p((i) => i.tenantId);
  const taskId = p((i) => i.taskId);
  const wasSubmitted = sql<boolean>`upd.prev_state = ${TaskState.SUBMITTED}`;
  // One statement (one round trip) on every task's path: data-modifying CTEs hang the WORKING
  // event and its push outbox rows off the guarded UPDATE, only when the claim moved the task out
  // of SUBMITTED. The status timestamp is cut to milliseconds so the event's RFC 3339 text and
  // the row agree exactly.
  return (
    db
      .with('prev', (qb) =>
        qb
          .selectFrom('tasks')
          .select('state as prev_state')
          .where('tenant_id', '=', tenantId)
          .where('id', '=', taskId)
          .forUpdate(),
      )
      .with('upd', (qc) =>
        qc
          .updateTable('tasks')
          .from('prev')
          .set((eb) => {
            const submitted = eb('prev.prev_state', '=', TaskState.SUBMITTED);
            return {
              state: TaskState.WORKING,
              version: eb
                .case()
                .when(submitted)
                .then(eb('tasks.version', '+', 1))
                .else(eb.ref('tasks.version'))
                .end(),
              status_timestamp: eb
                .case()
                .when(submitted)
                .then(sql<Date>`date_trunc('milliseconds', now())`)
                .else(eb.ref('tasks.status_timestamp'))
                .end(),
              lease_owner: p((i) => i.workerId),
              lease_expires_at: msFromNow(p((i) => i.leaseMs)),
              attempts: eb('tasks.attempts', '+', 1),
              updated_at: now(),
            };
          })
          .where('tasks.tenant_id', '=', tenantId)
          .where('tasks.id', '=', taskId)
          .where('tasks.state', 'in', LIVE)
          .where((eb) =>
            eb.or([eb('tasks.lease_owner', 'is', null), eb('tasks.lease_expires_at', '<', now())]),
          )
          .where('tasks.run_after', '<=', now())
          .returningAll('tasks')
          .returning('prev.prev_state'),
      )
      .with('ev', (qc) =>
        qc
          .insertInto('task_events')
          .columns(['tenant_id', 'task_id', 'seq', 'kind', 'payload'])
          .expression((eb) =>
            eb
              .selectFrom('upd')
              .select((e) => [
                'upd.tenant_id',
                'upd.id',
                'upd.version',
                e.val('statusUpdate' as const).as('kind'),
                sql<string>`jsonb_build_object('statusUpdate', jsonb_build_object(
                'taskId', upd.id, 'contextId', upd.context_id,
                'status', jsonb_build_object('state', ${TaskState.WORKING}::text,
                  'timestamp', to_char(upd.status_timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))))`.as(
                  'payload',
                ),
              ])
              .where(wasSubmitted),
          ),
      )
      .with('deliveries', (qc) =>
        qc
          .insertInto('push_deliveries')
          .columns(['tenant_id', 'task_id', 'config_id', 'seq'])
          .expression((eb) =>
            eb
              .selectFrom('push_configs as pc')
              .innerJoin('upd', (j) =>
                j.onRef('upd.tenant_id', '=', 'pc.tenant_id').onRef('upd.id', '=', 'pc.task_id'),
              )
              .select(['pc.tenant_id', 'pc.task_id', 'pc.id', 'upd.version'])
              .where('upd.visibility', '=', sql.lit('task'))
              .where(wasSubmitted)
              // Keyed by the statement's parameters too, not only through upd: see below.
              .where('pc.tenant_id', '=', tenantId)
              .where('pc.task_id', '=', taskId),
          )
          .returning('push_deliveries.seq'),
      )
      .selectFrom('upd')
      .selectAll()
      .select(sql<boolean>`exists (select 1 from deliveries)`.as('push_due'))
      // The run's inputs ride on the claim (no second round trip). The sub-selects read the
      // statement's snapshot: the WORKING event inserted above is not in it, and is no generation
      // start anyway, so they see what a read right after the claim would. Version 2 after a claim
      // is a first run (created at 1, moved to WORKING at 2, nothing written since): no chunks yet.
      //
      // Every read of a partitioned table here names the tenant as a statement parameter, not as a
      // column of upd. With the generic plan a prepared statement runs (prepared-statements.ts),
      // Postgres prunes partitions by parameters when the executor starts, so it sets up one
      // partition's scan instead of all eight; keyed only through upd, it set up all eight for
      // every read, and the claim cost a fifth more Postgres CPU.
      .select(runInputsSelection(sql.val(tenantId), sql.val(taskId), sql<boolean>`upd.version <= 2`))
  );
}
