import { TaskState } from '@switchyard/protocol';
import { createDb } from '../src/db.ts';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresTaskStore } from '../src/postgres-task-store.ts';
import { claimTasks } from '../src/tasks/claim-task.ts';
import type { ClaimInput } from '../src/task-store.ts';
import {
  createdTask,
  deliverySeqs,
  eventSeqs,
  lapseLease,
  newTask,
  useTaskTestEnv,
  statusEvent,
  taskInState,
  tenant,
} from './task-fixtures.ts';

const env = useTaskTestEnv();

const input = (tenantId: string, taskId: string, workerId = 'w1'): ClaimInput => ({
  tenantId,
  taskId,
  workerId,
  leaseMs: 60_000,
});

describe('claims in batches (group commit of one worker’s concurrent claims)', () => {
  it('claims every task of a batch for its own caller, with its event and push rows', async () => {
    const t = tenant();
    const tasks = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createdTask(
          env.store,
          newTask(t, i % 3 === 0 ? { pushConfig: { id: 'c1', url: 'https://hooks.example/1' } } : {}),
        ),
      ),
    );
    const results = await claimTasks(
      env.db,
      tasks.map((task) => input(t, task.id)),
    );
    for (const [i, task] of tasks.entries()) {
      expect(results[i]).toMatchObject({
        movedToWorking: true,
        task: {
          id: task.id,
          state: TaskState.WORKING,
          version: 2,
          leaseOwner: expect.stringMatching(/^w1\//),
          attempts: 1,
        },
      });
      expect(results[i]?.task.pushDue).toBe(i % 3 === 0);
      expect(results[i]?.inputs.history).toHaveLength(1);
      expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2]);
      // The config given at creation already has seq 1's delivery; the claim adds seq 2's.
      expect((await deliverySeqs(env.db, t, task.id)).map((d) => d.seq)).toEqual(i % 3 === 0 ? [1, 2] : []);
    }
    // Every claim of the batch leases under a token of its own.
    expect(new Set(results.map((r) => r?.task.leaseOwner)).size).toBe(tasks.length);
  });

  it('gives a task asked for twice in one batch to the first claim only', async () => {
    const t = tenant();
    const a = await createdTask(env.store, newTask(t));
    const b = await createdTask(env.store, newTask(t));
    const results = await claimTasks(env.db, [input(t, a.id), input(t, a.id.toUpperCase()), input(t, b.id)]);
    expect(results.map((r) => r?.task.id ?? null)).toEqual([a.id, null, b.id]);
    expect(await eventSeqs(env.db, t, a.id)).toEqual([1, 2]);
  });

  it('claims only what the guard allows: held, lapsed, terminal, not due, unknown and malformed ids in one batch', async () => {
    const t = tenant();
    const free = await createdTask(env.store, newTask(t));
    const held = await createdTask(env.store, newTask(t));
    const lapsed = await createdTask(env.store, newTask(t));
    await claimTasks(env.db, [input(t, held.id, 'other'), input(t, lapsed.id, 'other')]);
    await lapseLease(env.db, t, lapsed.id);
    const done = await taskInState(env.store, newTask(t), TaskState.COMPLETED);
    const later = await createdTask(env.store, newTask(t));
    await env.store.changeTask({
      tenantId: t,
      taskId: later.id,
      expectedVersion: 1,
      patch: { runAfterMs: 3_600_000 },
      event: statusEvent(later, TaskState.SUBMITTED),
    });
    const ids = [free.id, held.id, lapsed.id, done.id, later.id, crypto.randomUUID(), 'not-a-uuid'];
    const results = await claimTasks(
      env.db,
      ids.map((id) => input(t, id)),
    );
    expect(results.map((r) => (r ? { id: r.task.id, moved: r.movedToWorking } : null))).toEqual([
      { id: free.id, moved: true },
      null,
      { id: lapsed.id, moved: false },
      null,
      null,
      null,
      null,
    ]);
    expect(await env.store.getTaskRecord(t, held.id)).toMatchObject({
      leaseOwner: expect.stringMatching(/^other\//),
      version: 2,
    });
    expect(await eventSeqs(env.db, t, lapsed.id)).toEqual([1, 2]);
  });

  it('refuses a batch whose claims differ in tenant, worker or lease', async () => {
    const t = tenant();
    const id = crypto.randomUUID();
    await expect(claimTasks(env.db, [input(t, id), input(tenant(), id)])).rejects.toThrow(/share/);
    await expect(claimTasks(env.db, [input(t, id), input(t, id, 'w2')])).rejects.toThrow(/share/);
  });

  it('a worker’s concurrent claims through the store each get their own task', async () => {
    const t = tenant();
    const other = tenant();
    const tasks = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createdTask(env.store, newTask(i % 4 === 0 ? other : t))),
    );
    const results = await Promise.all(
      tasks.map((task) => env.store.claimTask(input(task.tenantId, task.id))),
    );
    expect(results.map((r) => r?.task.id)).toEqual(tasks.map((task) => task.id));
    expect(results.every((r) => r?.movedToWorking)).toBe(true);
  });

  it('two workers racing over the same tasks in batches: each task claimed once, no deadlock', async () => {
    // A pool per worker, as two processes have: their batches lock rows at the same time.
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: env.testDb.url, max: 4 }));
    try {
      const stores = pools.map((pool) => new PostgresTaskStore({ db: createDb(pool) }));
      const t = tenant();
      for (let round = 0; round < 5; round++) {
        const tasks = await Promise.all(Array.from({ length: 30 }, () => createdTask(env.store, newTask(t))));
        const claimsOf = (w: number, order: typeof tasks) =>
          order.map((task) => stores[w]!.claimTask(input(t, task.id, `w${w}`)));
        const [first, second] = await Promise.all([
          Promise.all(claimsOf(0, tasks)),
          Promise.all(claimsOf(1, [...tasks].reverse())),
        ]);
        const secondById = new Map(second.map((r, i) => [tasks[tasks.length - 1 - i]!.id, r]));
        for (const [i, task] of tasks.entries()) {
          const winners = [first[i], secondById.get(task.id)].filter((r) => r !== null);
          expect(winners).toHaveLength(1);
          const record = await env.store.getTaskRecord(t, task.id);
          expect(record?.leaseOwner).toBe(winners[0]!.task.leaseOwner);
          expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2]);
        }
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
