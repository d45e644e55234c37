import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../src/db.ts';
import type { TaskRecord } from '../src/task-store.ts';
import { claimTasks } from '../src/tasks/claim-task.ts';
import { endRuns } from '../src/tasks/end-runs.ts';
import { createdTask, eventSeqs, newTask, useTaskTestEnv, statusEvent, tenant } from './task-fixtures.ts';

// A claim and a run ending check their guard (state, lease, due time) on the row version they
// lock, in the CTE that locks it, not in the UPDATE's WHERE (claim-task.ts). These tests make a
// rival's write commit while the statement waits for the row, so the version it started from is
// stale by the time it holds the lock: the guard must be checked against the rival's version.

const env = useTaskTestEnv();

const claim = (task: TaskRecord, workerId: string) =>
  claimTasks(env.db, [{ tenantId: task.tenantId, taskId: task.id, workerId, leaseMs: 60_000 }]);

/** Runs `write` in a transaction that holds the task's row while `waiter` starts and blocks on it. */
async function whileHeld<T>(
  task: TaskRecord,
  write: (trx: Db) => Promise<unknown>,
  waiter: () => Promise<T>,
) {
  let waiting: Promise<T> | undefined;
  await env.db.transaction().execute(async (trx) => {
    await write(trx);
    waiting = waiter();
    // The waiter's statement is queued behind this transaction's row lock before it commits.
    await waitFor(
      async () =>
        (
          await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(env.db)
        ).rows[0]!.n > 0,
      { timeoutMs: 10_000, intervalMs: 10, what: 'the waiter blocked on the row' },
    );
  });
  return waiting!;
}

const cancel = (task: TaskRecord) => (trx: Db) =>
  trx
    .updateTable('tasks')
    .set({ state: TaskState.CANCELED, lease_owner: null, lease_expires_at: null, version: task.version + 1 })
    .where('tenant_id', '=', task.tenantId)
    .where('id', '=', task.id)
    .execute();

describe('guards checked on the version a waiting claim or ending locks', () => {
  it('a claim that waited while the task was canceled claims nothing', async () => {
    const task = await createdTask(env.store, newTask(tenant()));
    const [claimed] = await whileHeld(task, cancel(task), () => claim(task, 'w1'));
    expect(claimed).toBeNull();
    const after = await env.store.getTaskRecord(task.tenantId, task.id);
    expect(after).toMatchObject({ state: TaskState.CANCELED, leaseOwner: null, version: 2 });
    expect(await eventSeqs(env.db, task.tenantId, task.id)).toEqual([1]);
  });

  it('a claim that waited while another worker claimed the task claims nothing', async () => {
    const task = await createdTask(env.store, newTask(tenant()));
    const [claimed] = await whileHeld(
      task,
      (trx) =>
        claimTasks(trx, [{ tenantId: task.tenantId, taskId: task.id, workerId: 'w1', leaseMs: 60_000 }]),
      () => claim(task, 'w2'),
    );
    expect(claimed).toBeNull();
    const after = await env.store.getTaskRecord(task.tenantId, task.id);
    expect(after?.leaseOwner).toMatch(/^w1\//);
    expect(after).toMatchObject({ state: TaskState.WORKING, version: 2, attempts: 1 });
  });

  it('a run ending that waited while the task was canceled changes nothing', async () => {
    const created = await createdTask(env.store, newTask(tenant()));
    const running = (await claim(created, 'w1'))[0]!.task;
    const [ended] = await whileHeld(running, cancel(running), () =>
      endRuns(env.db, [
        {
          tenantId: running.tenantId,
          taskId: running.id,
          expectedVersion: running.version,
          fromStates: [TaskState.WORKING],
          leaseOwner: running.leaseOwner!,
          patch: { state: TaskState.COMPLETED, statusMessage: null, clearLease: true },
          event: statusEvent(running, TaskState.COMPLETED),
        },
      ]),
    );
    expect(ended).toBeInstanceOf(Error);
    const after = await env.store.getTaskRecord(running.tenantId, running.id);
    expect(after).toMatchObject({ state: TaskState.CANCELED, version: 3 });
    expect(await eventSeqs(env.db, running.tenantId, running.id)).toEqual([1, 2]);
  });
});
