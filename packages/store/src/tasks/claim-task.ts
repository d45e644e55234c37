import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import {
  loadRunInputs,
  runInputsSelection,
  toRunInputs,
  type RunInputs,
  type RunInputsColumns,
} from './load-run-inputs.ts';
import { releaseLease } from './release-lease.ts';
import type { Db } from '../db.ts';
import type { ClaimInput, ClaimResult, TaskRecord } from '../task-store.ts';
import { msFromNow } from './sql-time.ts';
import { statusAfterPrevious } from './status-time.ts';
import { isTaskId, toTaskRecord, type TaskRow } from './task-row.ts';

/** Claims that may go in one statement: same tenant, same worker, same lease. */
export const claimBatchKey = (input: ClaimInput): string =>
  JSON.stringify([input.tenantId, input.workerId, input.leaseMs]);

type ClaimRow = TaskRow &
  RunInputsColumns & { prev_state: TaskState; push_due: boolean; snapshot_version: number | null };

/**
 * Leases live, due, unleased (or lapsed) tasks to a worker in one guarded UPDATE (ARCHITECTURE.md
 * §3 rule 4), for a batch of claims that share `claimBatchKey`. A SUBMITTED task becomes WORKING
 * with a new version and a statusUpdate event; re-claiming a WORKING task (after a lapsed lease)
 * changes no version, so the previous owner's next CAS fails on lease_owner instead. The lease
 * owner is the worker's id and a token of this claim (`worker/1a2b3c4d-5e6f`), which the run then
 * writes, renews and releases under: a re-claim by the same worker process (its event loop stalled
 * past the lease, and the reaper's re-dispatch came back to it) fences the stale run as surely as
 * a claim by another worker would. Each claim
 * gets null when the guard does not hold for its task. A task asked for twice in one batch is
 * claimed once: the first claim gets it, the other null, as if it had come second.
 *
 * PostgresTaskStore coalesces a worker's concurrent claims into these batches (group commit): on
 * the partitioned tables one statement for n claims costs Postgres far less than n statements
 * (measured per claim: 0.25 ms alone, 0.15 ms in twos, 0.09 ms in fours), and a batch of one
 * costs what the single-task statement did.
 */
export async function claimTasks(db: Db, inputs: readonly ClaimInput[]): Promise<Array<ClaimResult | null>> {
  const first = inputs[0];
  if (!first) return [];
  if (inputs.some((i) => claimBatchKey(i) !== claimBatchKey(first)))
    throw new Error('claimTasks: every claim of a batch must share its tenant, worker and lease');
  const byId = new Map<string, number>();
  inputs.forEach((input, k) => {
    const id = input.taskId.toLowerCase();
    if (isTaskId(id) && !byId.has(id)) byId.set(id, k);
  });
  const results: Array<ClaimResult | null> = inputs.map(() => null);
  if (byId.size === 0) return results;
  const { rows } = await claimStatement(first, [...byId.keys()]).execute(db);
  for (const row of rows) {
    const { prev_state, push_due, history, chunks, generation_start, snapshot_version, ...taskRow } = row;
    const movedToWorking = prev_state === TaskState.SUBMITTED;
    // The inputs were read in the statement's snapshot; the claim waited for the row lock while
    // the previous owner (lease lapsed, but still its writer) committed a change: its chunk is
    // not in that snapshot, and the run would write it again. Read the inputs anew.
    const inputsCurrent = snapshot_version === row.version - (movedToWorking ? 1 : 0);
    const task = { ...toTaskRecord(taskRow as TaskRow), pushDue: push_due };
    const inputs = inputsCurrent
      ? toRunInputs({ history, chunks, generation_start })
      : await rereadInputs(db, task);
    results[byId.get(row.id)!] = inputs ? { task, movedToWorking, inputs } : null;
  }
  return results;
}

/**
 * The run inputs read after the claim committed. Its failure must not fail the batch: the claims
 * have committed, and a batch that throws is retried claim by claim, each then refused, leaving
 * every task of it leased to a run that never starts. So a failed re-read gives only its own task
 * back (lease released, the attempt refunded, due at once) and answers null for it, as a lost
 * claim does; if even that fails, the lease lapses and the reaper takes the task.
 */
async function rereadInputs(db: Db, task: TaskRecord): Promise<RunInputs | null> {
  try {
    return await loadRunInputs(db, task.tenantId, task.id);
  } catch {
    await releaseLease(db, {
      tenantId: task.tenantId,
      taskId: task.id,
      leaseOwner: task.leaseOwner!,
      refundAttempt: true,
    }).catch(() => false);
    return null;
  }
}

/**
 * One statement (one round trip) on every task's path: data-modifying CTEs hang the WORKING event
 * and its push outbox rows off the guarded UPDATE, only for the tasks the claim moved out of
 * SUBMITTED. `prev` locks the rows in id order (two batches never wait on each other in a cycle)
 * and reads their state before the UPDATE: Postgres 15 has no RETURNING old.*, and the lock makes
 * prev_state the state of exactly the row version the UPDATE then writes. The status timestamp is
 * cut to milliseconds so the event's RFC 3339 text and the row agree exactly.
 *
 * The guard (live, unleased or lapsed, due) is evaluated in `prev`, on the locked row version
 * (a row changed since the statement's snapshot is re-read when locked), not in the UPDATE's own
 * WHERE: a condition on `state` there lets the planner reach the rows through the state index or
 * the partial lease index, and with statistics taken while the backlog was small it did, reading
 * every queued task of the tenant to claim one (20 ms a claim with 20,000 queued, growing with
 * the backlog). Keyed only by tenant and ids, the UPDATE reads its own rows by primary key.
 *
 * Every read of a partitioned table names the tenant as a parameter and the tasks as `= any` of
 * an array parameter, never only through a join: with the generic plan a named statement runs
 * (prepared-statements.ts), Postgres prunes partitions by parameters when the executor starts, so
 * it sets up one partition's scan instead of all eight (keyed through a join, the claim cost a
 * fifth more, and a join against unnest() two and a half times as much).
 */
function claimStatement({ tenantId, workerId, leaseMs }: ClaimInput, taskIds: string[]) {
  const submitted = sql.lit(TaskState.SUBMITTED);
  return sql<ClaimRow>`
    WITH prev AS (
      SELECT t.id, t.state AS prev_state,
             t.state IN (${submitted}, ${sql.lit(TaskState.WORKING)})
               AND (t.lease_owner IS NULL OR t.lease_expires_at < now())
               AND t.run_after <= now() AS claimable
        FROM tasks t
       WHERE t.tenant_id = ${tenantId} AND t.id = ANY(${taskIds}::uuid[])
       ORDER BY t.id
         FOR UPDATE OF t
    ), upd AS (
      UPDATE tasks SET
        state = ${sql.lit(TaskState.WORKING)},
        version = CASE WHEN prev.prev_state = ${submitted} THEN tasks.version + 1 ELSE tasks.version END,
        status_timestamp = CASE WHEN prev.prev_state = ${submitted}
          THEN ${statusAfterPrevious()} ELSE tasks.status_timestamp END,
        lease_owner = ${workerId} || '/' || left(gen_random_uuid()::text, 13),
        lease_expires_at = ${msFromNow(leaseMs)},
        attempts = tasks.attempts + 1,
        updated_at = now()
      FROM prev
      WHERE tasks.tenant_id = ${tenantId} AND tasks.id = ANY(${taskIds}::uuid[])
        AND tasks.id = prev.id AND prev.claimable
      RETURNING tasks.*, prev.prev_state
    ), ev AS (
      INSERT INTO task_events (tenant_id, task_id, seq, kind, payload)
      SELECT upd.tenant_id, upd.id, upd.version, 'statusUpdate', jsonb_build_object('statusUpdate',
        jsonb_build_object('taskId', upd.id, 'contextId', upd.context_id,
          'status', jsonb_build_object('state', ${sql.lit(TaskState.WORKING)}::text,
            'timestamp', to_char(upd.status_timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))))
        FROM upd WHERE upd.prev_state = ${submitted}
    ), deliveries AS (
      INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq)
      -- The configs as they are once the row is held, not as this statement's snapshot saw them
      -- (000011_task_push_config_ids.sql).
      SELECT upd.tenant_id, upd.id, pc.config_id, upd.version
        FROM upd CROSS JOIN LATERAL task_push_config_ids(upd.tenant_id, upd.id) pc
       WHERE upd.visibility = 'task' AND upd.prev_state = ${submitted}
      RETURNING push_deliveries.task_id
    )
    -- The run's inputs ride on the claim (no second round trip). The sub-selects read the
    -- statement's snapshot: the WORKING event inserted above is not in it, and is no generation
    -- start anyway, so they see what a read right after the claim would. Version 2 after a claim
    -- is a first run (created at 1, moved to WORKING at 2, nothing written since): no chunks yet.
    SELECT upd.*,
      EXISTS (SELECT 1 FROM deliveries d WHERE d.task_id = upd.id) AS push_due,
      (SELECT s.version FROM tasks s WHERE s.tenant_id = ${tenantId} AND s.id = upd.id) AS snapshot_version,
      ${sql.join(runInputsSelection(sql`${tenantId}`, sql.ref('upd.id'), sql<boolean>`upd.version <= 2`))}
    FROM upd`;
}
