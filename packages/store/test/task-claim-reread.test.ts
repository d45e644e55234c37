import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { changeTask } from '../src/tasks/change-task.ts';
import { newTask, openTaskTestEnv, tenant, type TaskTestEnv } from './task-fixtures.ts';

// A take-over claim whose snapshot was stale re-reads the run inputs in a second statement, after
// the claim committed (claim-task.ts). Found in review: when that read failed, the whole batch
// failed, was retried claim by claim and refused, and every task of it stayed leased to a run
// that never started. Make the re-read fail once, as a dropped connection would.
let failReads = 0;
vi.mock('../src/tasks/load-run-inputs.ts', async (original) => {
  const real = await original<typeof import('../src/tasks/load-run-inputs.ts')>();
  return {
    ...real,
    loadRunInputs: (...args: Parameters<typeof real.loadRunInputs>) =>
      failReads-- > 0
        ? Promise.reject(new Error('connection terminated unexpectedly'))
        : real.loadRunInputs(...args),
  };
});

let env: TaskTestEnv;
beforeAll(async () => {
  env = await openTaskTestEnv();
});
afterAll(() => env.testDb.drop());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a claim batch whose re-read of run inputs fails', () => {
  it('gives back only that task (lease released, attempt refunded); the batch\u2019s other claims stand', async () => {
    const t = tenant();
    const [x, y, z] = [newTask(t), newTask(t), newTask(t)];
    for (const input of [x, y, z]) await env.store.createTask(input);
    // X runs under A, whose lease lapsed while A still writes: B's take-over waits for A's write.
    const a = (await env.store.claimTask({ tenantId: t, taskId: x.id, workerId: 'A', leaseMs: 60_000 }))!;
    await env.db
      .updateTable('tasks')
      .set({ lease_expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', x.id)
      .execute();
    const event = {
      statusUpdate: { taskId: x.id, contextId: x.contextId, status: { state: TaskState.WORKING } },
    };
    let batch: Promise<Array<string | null>> | undefined;
    let lone: Promise<unknown> | undefined;
    await env.db.transaction().execute(async (writerTx) => {
      await changeTask(writerTx, {
        tenantId: t,
        taskId: x.id,
        expectedVersion: a.task.version,
        fromStates: [TaskState.WORKING],
        leaseOwner: a.task.leaseOwner!,
        patch: { state: TaskState.WORKING },
        event,
      });
      await env.db.transaction().execute(async (holdZ) => {
        await holdZ
          .selectFrom('tasks')
          .select('id')
          .where('tenant_id', '=', t)
          .where('id', '=', z.id)
          .forUpdate()
          .execute();
        // One claim in flight (waiting on Z's row), so the next two coalesce into one batch [X, Y].
        lone = env.store.claimTask({ tenantId: t, taskId: z.id, workerId: 'B', leaseMs: 60_000 });
        await sleep(100);
        batch = Promise.all(
          [x, y].map((i) =>
            env.store
              .claimTask({ tenantId: t, taskId: i.id, workerId: 'B', leaseMs: 60_000 })
              .then((r) => r?.task.leaseOwner ?? null),
          ),
        );
        await sleep(100);
      });
      await sleep(500);
      failReads = 1;
    });
    await lone;
    const [claimedX, claimedY] = await batch!;
    expect(claimedX).toBeNull();
    expect(claimedY).toMatch(/^B\//);
    const rowX = await env.store.getTaskRecord(t, x.id);
    expect(rowX).toMatchObject({ state: TaskState.WORKING, leaseOwner: null, attempts: 1 });
  });
});
