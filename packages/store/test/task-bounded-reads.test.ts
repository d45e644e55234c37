import { TaskState } from '@switchyard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool, type Db } from '../src/db.ts';
import { claimTasks } from '../src/tasks/claim-task.ts';
import { changeTask } from '../src/tasks/change-task.ts';
import { endRuns } from '../src/tasks/end-runs.ts';
import { findDispatchable } from '../src/tasks/find-dispatchable.ts';
import { findLapsedLeases } from '../src/tasks/find-lapsed-leases.ts';
import { findUnheardCancels } from '../src/tasks/find-unheard-cancels.ts';
import { listTasks } from '../src/tasks/list-tasks.ts';
import { renewLease } from '../src/tasks/renew-lease.ts';
import type { DispatchPosition, DispatchScan, TaskRecord } from '../src/task-store.ts';
import { rowsRead } from './rows-read.ts';
import {
  createdTask,
  newTask,
  openTaskTestEnv,
  statusEvent,
  tenant,
  type TaskTestEnv,
} from './task-fixtures.ts';

// The hot statements run as named statements with generic plans, planned with the statistics of
// the last ANALYZE (prepared-statements.ts, upkeep-tables.ts). A tenant with a long history whose
// backlog then grows (a burst of sends) changes too few rows for a new ANALYZE, so the statistics
// still say nothing is queued. These tests count the rows of `tasks` each statement reads (the
// backend's own counters) and check that claims, run endings, changes and the reaper's sweeps read
// the rows they act on, not the tenant's queue or its history.

let env: TaskTestEnv;
/** One connection, so the statements named on their second use run with their generic plans. */
let db: Db;
beforeAll(async () => {
  env = await openTaskTestEnv();
  db = createDb(createPool({ connectionString: env.testDb.url, maxConnections: 1 }));
});
afterAll(async () => {
  await db.destroy();
  await env.testDb.drop();
});

const HISTORY = 20_000;
const BACKLOG = 1_500;

/** A tenant with HISTORY finished tasks, analyzed, then BACKLOG queued ones the statistics miss. */
async function tenantWithUnseenBacklog(): Promise<string> {
  const tenantId = tenant();
  const insert = (state: TaskState, count: number) =>
    env.testDb.pool.query(
      `INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
       SELECT $1, gen_random_uuid(), 'c', 'echo', 'alice', 'task', $2, 3, now() FROM generate_series(1, $3)`,
      [tenantId, state, count],
    );
  await insert(TaskState.COMPLETED, HISTORY);
  await env.testDb.pool.query('ANALYZE tasks');
  await insert(TaskState.SUBMITTED, BACKLOG);
  return tenantId;
}

const tasksRowsRead = (work: (trx: Db) => Promise<unknown>) => rowsRead(db, 'tasks', work);

const claimOne = (d: Db, task: TaskRecord) =>
  claimTasks(d, [{ tenantId: task.tenantId, taskId: task.id, workerId: 'w1', leaseMs: 60_000 }]);

async function queuedTasks(tenantId: string, count: number): Promise<TaskRecord[]> {
  const tasks: TaskRecord[] = [];
  for (let k = 0; k < count; k++) tasks.push(await createdTask(env.store, newTask(tenantId)));
  return tasks;
}

/** Tasks claimed by w1, and the backlog running too (claimed by w2), as after a burst of claims. */
async function runningTasks(tenantId: string, count: number): Promise<TaskRecord[]> {
  const running: TaskRecord[] = [];
  for (const task of await queuedTasks(tenantId, count))
    running.push((await claimOne(env.db, task))[0]!.task);
  await env.testDb.pool.query(
    `UPDATE tasks SET state = 'TASK_STATE_WORKING', lease_owner = 'w2/x', lease_expires_at = now() + interval '1 hour'
      WHERE tenant_id = $1 AND state = 'TASK_STATE_SUBMITTED'`,
    [tenantId],
  );
  return running;
}

describe('reads of a claim and a run ending, with a backlog the statistics do not show', () => {
  it('a claim reads its own task, not the queue', async () => {
    const tenantId = await tenantWithUnseenBacklog();
    const tasks = await queuedTasks(tenantId, 3);
    // The first two name the statement on this connection; the third runs it with its generic plan.
    for (const task of tasks.slice(0, 2)) expect((await claimOne(db, task))[0]).not.toBeNull();
    let claimed = false;
    const read = await tasksRowsRead(async (trx) => {
      claimed = (await claimOne(trx, tasks[2]!))[0] !== null;
    });
    expect(claimed).toBe(true);
    expect(read).toBeLessThan(10);
  });

  it('a run ending reads its own task, not the tenant’s running ones', async () => {
    const tenantId = await tenantWithUnseenBacklog();
    const running = await runningTasks(tenantId, 3);
    const end = (d: Db, task: TaskRecord) =>
      endRuns(d, [
        {
          tenantId,
          taskId: task.id,
          expectedVersion: task.version,
          fromStates: [TaskState.WORKING],
          leaseOwner: task.leaseOwner!,
          patch: { state: TaskState.COMPLETED, statusMessage: null, clearLease: true },
          event: statusEvent(task, TaskState.COMPLETED),
        },
      ]);
    for (const task of running.slice(0, 2)) expect((await end(db, task))[0]).not.toBeInstanceOf(Error);
    let ended: unknown;
    const read = await tasksRowsRead(async (trx) => {
      ended = (await end(trx, running[2]!))[0];
    });
    expect(ended).toMatchObject({ state: TaskState.COMPLETED });
    expect(read).toBeLessThan(10);
  });

  it('a single change and a lease renewal read their own task', async () => {
    const tenantId = await tenantWithUnseenBacklog();
    const running = await runningTasks(tenantId, 3);
    const change = (d: Db, task: TaskRecord) =>
      changeTask(d, {
        tenantId,
        taskId: task.id,
        expectedVersion: task.version,
        fromStates: [TaskState.WORKING],
        leaseOwner: task.leaseOwner!,
        patch: { state: TaskState.INPUT_REQUIRED, clearLease: true },
        event: statusEvent(task, TaskState.INPUT_REQUIRED),
      });
    const renew = (d: Db, task: TaskRecord) =>
      renewLease(d, { tenantId, taskId: task.id, leaseOwner: task.leaseOwner!, leaseMs: 60_000 });
    for (const task of running.slice(0, 2)) {
      expect((await renew(db, task)).ok).toBe(true);
      await change(db, task);
    }
    const read = await tasksRowsRead(async (trx) => {
      expect((await renew(trx, running[2]!)).ok).toBe(true);
      expect(await change(trx, running[2]!)).toMatchObject({ state: TaskState.INPUT_REQUIRED });
    });
    expect(read).toBeLessThan(10);
  });
});

describe('the reaper’s sweeps', () => {
  it('read the live tasks they return, not the tenants’ history', async () => {
    const tenantId = await tenantWithUnseenBacklog();
    // Three lapsed leases among the backlog, which is due and unleased.
    await env.testDb.pool.query(
      `UPDATE tasks SET state = 'TASK_STATE_WORKING', lease_owner = 'w9/x', lease_expires_at = now() - interval '1 minute'
        WHERE tenant_id = $1 AND id IN (SELECT id FROM tasks WHERE tenant_id = $1 AND state = 'TASK_STATE_SUBMITTED' LIMIT 3)`,
      [tenantId],
    );
    // Canceled history, and one canceled task whose run never released its lease.
    await env.testDb.pool.query(
      `UPDATE tasks SET state = 'TASK_STATE_CANCELED'
        WHERE tenant_id = $1 AND id IN (SELECT id FROM tasks WHERE tenant_id = $1 AND state = 'TASK_STATE_COMPLETED' LIMIT 1000)`,
      [tenantId],
    );
    await env.testDb.pool.query(
      `UPDATE tasks SET lease_owner = 'w8/x', lease_expires_at = now() - interval '1 minute'
        WHERE tenant_id = $1 AND id IN (SELECT id FROM tasks WHERE tenant_id = $1 AND state = 'TASK_STATE_CANCELED' LIMIT 1)`,
      [tenantId],
    );
    const sweep = async (d: Db) => [
      await findLapsedLeases(d, 5),
      (await findDispatchable(d, 0, 5)).tasks,
      await findUnheardCancels(d, 0, 5),
    ];
    for (let k = 0; k < 2; k++) await sweep(db);
    let found: unknown[][] = [];
    const read = await tasksRowsRead(async (trx) => {
      found = await sweep(trx);
    });
    expect(found.map((rows) => rows.length)).toEqual([3, 5, 1]);
    expect(read).toBeLessThan(50);
  });

  // Found in review: a disabled tenant's work is not dispatched, and the scan filtered it out
  // after reading it, so every sweep that reached its backlog read all of it.
  it('read a disabled tenant’s backlog a window at a time, and go on past it', async () => {
    const tenantId = await tenantWithUnseenBacklog();
    await env.testDb.pool.query(
      `INSERT INTO tenants (id, name, webhook_secret_enc, disabled_at) VALUES ($1, $1, '\\x00', now())`,
      [tenantId],
    );
    // The oldest work of all, so the walk begins in it.
    await env.testDb.pool.query(
      `UPDATE tasks SET run_after = '2000-01-01' WHERE tenant_id = $1 AND state = 'TASK_STATE_SUBMITTED'`,
      [tenantId],
    );
    const other = tenant();
    const behind = await createdTask(env.store, newTask(other));
    const step = (d: Db, after?: DispatchPosition) => findDispatchable(d, 0, 50, after);
    for (let k = 0; k < 2; k++) await step(db);
    let first: DispatchScan = { tasks: [] };
    const read = await tasksRowsRead(async (trx) => {
      first = await step(trx);
    });
    expect(read).toBeLessThan(100);
    expect(first.tasks.filter((t) => t.tenantId === tenantId)).toEqual([]);
    expect(first.next).toBeDefined();
    // Step by step, the walk reaches the other tenant's task behind the backlog, then ends.
    let position = first.next;
    const found: string[] = [];
    for (let steps = 0; position && steps < 1000; steps++) {
      const next = await step(db, position);
      found.push(...next.tasks.map((t) => t.taskId));
      position = next.next;
    }
    expect(position).toBeUndefined();
    expect(found).toContain(behind.id);
  });
});

describe('ListTasks', () => {
  it('reads a principal’s own tasks, not the tenant’s, when another principal owns most of them', async () => {
    const tenantId = tenant();
    const insert = (owner: string, count: number) =>
      env.testDb.pool.query(
        `INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
         SELECT $1, gen_random_uuid(), 'c', 'echo', $2, 'task', 'TASK_STATE_COMPLETED', 3,
                now() - make_interval(secs => g) FROM generate_series(1, $3) AS g`,
        [tenantId, owner, count],
      );
    // A service account's long history, and a person's few tasks, older than all of it.
    await insert('service', HISTORY);
    await env.testDb.pool.query(
      `UPDATE tasks SET status_timestamp = status_timestamp + interval '1 day' WHERE tenant_id = $1`,
      [tenantId],
    );
    await insert('bob', 60);
    await env.testDb.pool.query('ANALYZE tasks');
    const caller = { tenantId, principal: 'bob', admin: false };
    const list = (d: Db) => listTasks(d, { caller, agentId: 'echo', pageSize: 50, includeArtifacts: false });
    for (let k = 0; k < 2; k++) await list(db);
    let page: Awaited<ReturnType<typeof list>> | undefined;
    const read = await tasksRowsRead(async (trx) => {
      page = await list(trx);
    });
    expect(page?.tasks).toHaveLength(50);
    expect(page?.totalSize).toBe(60);
    // The page (51 rows) and the count (60), through bob's own index range.
    expect(read).toBeLessThan(200);
  });
});
