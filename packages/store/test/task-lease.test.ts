import { TaskState } from '@switchyard/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { TaskRecord } from '../src/task-store.ts';
import { ConflictError } from '../src/errors.ts';
import { changeTask } from '../src/tasks/change-task.ts';
import { artifactChunkBytes } from '../src/tasks/compose-artifacts.ts';
import {
  agentMessage,
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

const claim = (tenantId: string, taskId: string, workerId: string) =>
  env.store.claimTask({ tenantId, taskId, workerId, leaseMs: 60_000 });

describe('claimTask (ARCHITECTURE §3 rule 4: leases fence workers)', () => {
  it('moves SUBMITTED to WORKING with a new version, a lease, an attempt and a statusUpdate event', async () => {
    const t = tenant();
    const task = await createdTask(
      env.store,
      newTask(t, { pushConfig: { id: 'c1', url: 'https://hooks.example/1' } }),
    );
    const result = await claim(t, task.id, 'w1');
    expect(result?.movedToWorking).toBe(true);
    expect(result?.task).toMatchObject({
      state: TaskState.WORKING,
      version: 2,
      leaseOwner: expect.stringMatching(/^w1\/[0-9a-f]{8}-[0-9a-f]{4}$/),
      attempts: 1,
    });
    expect(result!.task.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    const [event] = await env.store.readEvents(t, task.id, 1);
    expect(event?.payload).toEqual({
      statusUpdate: {
        taskId: task.id,
        contextId: task.contextId,
        status: { state: TaskState.WORKING, timestamp: result!.task.statusTimestamp.toISOString() },
      },
    });
    expect(await deliverySeqs(env.db, t, task.id)).toEqual([
      { config_id: 'c1', seq: 1 },
      { config_id: 'c1', seq: 2 },
    ]);
    expect(result?.task.pushDue).toBe(true);
    const plain = await createdTask(env.store, newTask(t));
    expect((await claim(t, plain.id, 'w1'))?.task.pushDue).toBe(false);
  });

  it('a held lease cannot be claimed; a lapsed one can, without a version bump for a WORKING task', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    await claim(t, task.id, 'w1');
    expect(await claim(t, task.id, 'w2')).toBeNull();
    await lapseLease(env.db, t, task.id);
    const again = await claim(t, task.id, 'w2');
    expect(again).toMatchObject({
      movedToWorking: false,
      task: { version: 2, leaseOwner: expect.stringMatching(/^w2\//), attempts: 2 },
    });
    expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2]);
  });

  it('each claim leases under a token of its own, so a re-claim by the same worker fences the stale run', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const first = (await claim(t, task.id, 'w1'))!;
    await lapseLease(env.db, t, task.id);
    const second = (await claim(t, task.id, 'w1'))!;
    expect(second.task.leaseOwner).not.toBe(first.task.leaseOwner);
    const stale = { tenantId: t, taskId: task.id, leaseOwner: first.task.leaseOwner!, leaseMs: 60_000 };
    expect(await env.store.renewLease(stale)).toEqual({ ok: false, state: TaskState.WORKING });
    await expect(
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: second.task.version,
        fromStates: [TaskState.WORKING],
        leaseOwner: first.task.leaseOwner!,
        patch: { state: TaskState.COMPLETED, clearLease: true },
        event: statusEvent(task, TaskState.COMPLETED),
      }),
    ).rejects.toThrow(ConflictError);
    expect(await env.store.releaseLease({ ...stale, refundAttempt: false })).toBe(false);
    expect(await env.store.renewLease({ ...stale, leaseOwner: second.task.leaseOwner! })).toEqual({
      ok: true,
      state: TaskState.WORKING,
    });
  });

  it('two workers claiming at once: exactly one wins', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(t, task.id, `w${i}`)));
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect((await env.store.getTaskRecord(t, task.id))?.leaseOwner).toBe(winners[0]?.task.leaseOwner);
    expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2]);
  });

  it('refuses terminal, interrupted, not-yet-due and foreign-tenant tasks', async () => {
    const t = tenant();
    const done = await taskInState(env.store, newTask(t), TaskState.COMPLETED);
    const asking = await taskInState(env.store, newTask(t), TaskState.INPUT_REQUIRED);
    const later = await createdTask(env.store, newTask(t));
    await env.store.changeTask({
      tenantId: t,
      taskId: later.id,
      expectedVersion: 1,
      patch: { runAfterMs: 3_600_000 },
      event: statusEvent(later, TaskState.SUBMITTED),
    });
    const foreign = await createdTask(env.store, newTask(t));
    expect(await claim(t, done.id, 'w')).toBeNull();
    expect(await claim(t, asking.id, 'w')).toBeNull();
    expect(await claim(t, later.id, 'w')).toBeNull();
    expect(await claim(tenant(), foreign.id, 'w')).toBeNull();
    expect(await claim(t, 'not-a-uuid', 'w')).toBeNull();
  });
});

describe('run_after is set on the database clock', () => {
  it('a writer whose clock runs an hour ahead still makes a task due now, or in runAfterMs by Postgres', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3_600_000 });
    try {
      const t = tenant();
      const now = await createdTask(env.store, newTask(t));
      await env.store.changeTask({
        tenantId: t,
        taskId: now.id,
        expectedVersion: 1,
        patch: { runAfterMs: 0 },
        event: statusEvent(now, TaskState.SUBMITTED),
      });
      expect(await claim(t, now.id, 'w')).not.toBeNull();
      const soon = await createdTask(env.store, newTask(t));
      await env.store.changeTask({
        tenantId: t,
        taskId: soon.id,
        expectedVersion: 1,
        patch: { runAfterMs: 5_000 },
        event: statusEvent(soon, TaskState.SUBMITTED),
      });
      const { rows } = await env.testDb.pool.query<{ ms: number }>(
        'SELECT (extract(epoch FROM run_after - now()) * 1000)::float8 AS ms FROM tasks WHERE tenant_id = $1 AND id = $2',
        [t, soon.id],
      );
      expect(rows[0]!.ms).toBeGreaterThan(4_000);
      expect(rows[0]!.ms).toBeLessThanOrEqual(5_000);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("a take-over claim racing the lapsed owner's last write", () => {
  it('reads the run inputs after the write it waited for, so no stored chunk is written twice', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const a = (await claim(t, task.id, 'A'))!;
    const chunkWrite = (expectedVersion: number, n: number) => ({
      tenantId: t,
      taskId: task.id,
      expectedVersion,
      fromStates: [TaskState.WORKING],
      leaseOwner: a.task.leaseOwner!,
      patch: {},
      event: {
        artifactUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          artifact: { artifactId: 'x', parts: [{ text: `c${n}` }] },
          append: n > 0,
        },
      },
      artifactChunk: { artifactId: 'x', append: n > 0, lastChunk: false, parts: [{ text: `c${n}` }] },
    });
    const first = await env.store.changeTask(chunkWrite(a.task.version, 0));
    // A's lease lapses, but A (still the owner) writes its next chunk; B's claim starts while
    // that transaction holds the row, waits for it, and then takes the task over.
    await lapseLease(env.db, t, task.id);
    let claimB: ReturnType<typeof claim> | undefined;
    await env.db.transaction().execute(async (tx) => {
      await changeTask(tx, chunkWrite(first.version, 1));
      claimB = claim(t, task.id, 'B');
      await new Promise((r) => setTimeout(r, 300));
    });
    const b = await claimB!;
    expect(b?.task.version).toBe(first.version + 1);
    expect(b?.inputs.storedChunks).toEqual(new Map([['x', 2]]));
    expect(b?.inputs).toEqual(await env.store.loadRunInputs(t, task.id));
  });
});

describe('renewLease and releaseLease', () => {
  it('renews only for the holder of a live task, and says why not otherwise', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const owner = (await claim(t, task.id, 'w1'))!.task.leaseOwner!;
    expect(
      await env.store.renewLease({ tenantId: t, taskId: task.id, leaseOwner: owner, leaseMs: 60_000 }),
    ).toEqual({ ok: true, state: TaskState.WORKING });
    expect(
      await env.store.renewLease({ tenantId: t, taskId: task.id, leaseOwner: 'w1', leaseMs: 60_000 }),
    ).toEqual({ ok: false, state: TaskState.WORKING });
    // Canceled under the worker: the lease stays on the row, but it is not live any more.
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 2,
      patch: { state: TaskState.CANCELED },
      event: statusEvent(task, TaskState.CANCELED),
    });
    expect(
      await env.store.renewLease({ tenantId: t, taskId: task.id, leaseOwner: owner, leaseMs: 60_000 }),
    ).toEqual({ ok: false, state: TaskState.CANCELED });
    expect(
      await env.store.renewLease({ tenantId: tenant(), taskId: task.id, leaseOwner: owner, leaseMs: 60_000 }),
    ).toEqual({ ok: false, state: null });
  });

  it('release clears the holder’s lease; a refund gives the attempt back and makes the task due now', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const owner = (await claim(t, task.id, 'w1'))!.task.leaseOwner!;
    expect(
      await env.store.releaseLease({ tenantId: t, taskId: task.id, leaseOwner: 'w2', refundAttempt: true }),
    ).toBe(false);
    expect(
      await env.store.releaseLease({ tenantId: t, taskId: task.id, leaseOwner: owner, refundAttempt: true }),
    ).toBe(true);
    const after = await env.store.getTaskRecord(t, task.id);
    expect(after).toMatchObject({ leaseOwner: null, leaseExpiresAt: null, attempts: 0, version: 2 });
    const again = (await claim(t, task.id, 'w2'))!.task.leaseOwner!;
    expect(
      await env.store.releaseLease({ tenantId: t, taskId: task.id, leaseOwner: again, refundAttempt: false }),
    ).toBe(true);
    expect((await env.store.getTaskRecord(t, task.id))?.attempts).toBe(1);
  });
});

describe('the reaper’s scans', () => {
  it('findLapsedLeases lists live tasks whose lease ran out', async () => {
    const t = tenant();
    const lapsed = await createdTask(env.store, newTask(t));
    const held = await createdTask(env.store, newTask(t));
    const owner = (await claim(t, lapsed.id, 'w1'))!.task.leaseOwner;
    await claim(t, held.id, 'w1');
    await lapseLease(env.db, t, lapsed.id);
    const found = (await env.store.findLapsedLeases(1000)).filter((x) => x.tenantId === t);
    expect(found).toEqual([{ tenantId: t, taskId: lapsed.id, leaseOwner: owner, attempts: 1 }]);
  });

  // Found in review: the reaper re-dispatched without the task's trace context, so a run it
  // started began a trace of its own.
  it("both carry the creating request's trace context, so the reaper's dispatch joins its trace", async () => {
    const t = tenant();
    const traceContext = { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, tracestate: 'k=v' };
    const lapsed = await createdTask(env.store, newTask(t, { traceContext }));
    const due = await createdTask(env.store, newTask(t, { traceContext }));
    await claim(t, lapsed.id, 'w1');
    await lapseLease(env.db, t, lapsed.id);
    const found = (await env.store.findLapsedLeases(1000)).filter((x) => x.tenantId === t);
    expect(found).toEqual([expect.objectContaining({ taskId: lapsed.id, traceContext })]);
    const dispatchable = (await env.store.findDispatchable(0, 1000)).tasks.filter((x) => x.tenantId === t);
    expect(dispatchable).toEqual([expect.objectContaining({ taskId: due.id, traceContext })]);
  });

  it('findDispatchable lists unleased due work, never Message replies', async () => {
    const t = tenant();
    const submitted = await createdTask(env.store, newTask(t));
    const leased = await createdTask(env.store, newTask(t));
    await claim(t, leased.id, 'w1');
    const released = await createdTask(env.store, newTask(t));
    const owner = (await claim(t, released.id, 'w1'))!.task.leaseOwner!;
    await env.store.releaseLease({
      tenantId: t,
      taskId: released.id,
      leaseOwner: owner,
      refundAttempt: false,
    });
    const reply = await createdTask(env.store, newTask(t, { visibility: 'message' }));
    const found = (await env.store.findDispatchable(0, 1000)).tasks.filter((x) => x.tenantId === t);
    expect(found.map((x) => x.taskId).sort()).toEqual([submitted.id, released.id].sort());
    expect(found.find((x) => x.taskId === released.id)).toMatchObject({
      agentId: 'echo',
      version: 2,
      attempts: 1,
    });
    expect(found.map((x) => x.taskId)).not.toContain(reply.id);
    // Young work is left to the normal enqueue path.
    expect((await env.store.findDispatchable(3_600_000, 1000)).tasks.filter((x) => x.tenantId === t)).toEqual(
      [],
    );
  });
});

describe('recoverLapsedLease', () => {
  const failEvent = (task: TaskRecord) => {
    const statusMessage = agentMessage('the worker stopped responding');
    return { statusMessage, event: statusEvent(task, TaskState.FAILED, statusMessage) };
  };
  const recover = (t: string, taskId: string, maxAttempts: number, leaseOwner: string) =>
    env.store.recoverLapsedLease({
      tenantId: t,
      taskId,
      leaseOwner,
      maxAttempts,
      backoffMs: (n) => n * 60_000,
      failEvent,
    });

  it('requeues with backoff while attempts remain', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const owner = (await claim(t, task.id, 'w1'))!.task.leaseOwner!;
    await lapseLease(env.db, t, task.id);
    const out = await recover(t, task.id, 3, owner);
    expect(out.outcome).toBe('requeued');
    if (out.outcome !== 'requeued') return;
    expect(out.task).toMatchObject({
      leaseOwner: null,
      leaseExpiresAt: null,
      version: 2,
      state: TaskState.WORKING,
    });
    expect(out.runAfter.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(await claim(t, task.id, 'w2')).toBeNull();
  });

  it('fails the task with the fail event once attempts are used up', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const owner = (await claim(t, task.id, 'w1'))!.task.leaseOwner!;
    await lapseLease(env.db, t, task.id);
    const out = await recover(t, task.id, 1, owner);
    expect(out.outcome).toBe('failed');
    if (out.outcome !== 'failed') return;
    expect(out.task).toMatchObject({
      state: TaskState.FAILED,
      version: 3,
      leaseOwner: null,
      lastError: 'lease expired',
    });
    expect(out.task.statusMessage?.parts).toEqual([{ text: 'the worker stopped responding' }]);
    const events = await env.store.readEvents(t, task.id, 2);
    expect(events.map((e) => e.payload.statusUpdate?.status.state)).toEqual([TaskState.FAILED]);
  });

  it('a pending request it fails becomes a visible Task, with its webhook told', async () => {
    const t = tenant();
    const task = await createdTask(
      env.store,
      newTask(t, { visibility: 'pending', pushConfig: { id: 'c1', url: 'https://hooks.example/1' } }),
    );
    const owner = (await claim(t, task.id, 'w1'))!.task.leaseOwner!;
    await lapseLease(env.db, t, task.id);
    const out = await recover(t, task.id, 1, owner);
    expect(out).toMatchObject({ outcome: 'failed', task: { state: TaskState.FAILED, visibility: 'task' } });
    expect((await deliverySeqs(env.db, t, task.id)).map((d) => d.seq)).toContain(3);
  });

  it('skips a lease that is still held, held by someone else, or already recovered', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const owner = (await claim(t, task.id, 'w1'))!.task.leaseOwner!;
    expect(await recover(t, task.id, 3, owner)).toEqual({ outcome: 'skipped' });
    await lapseLease(env.db, t, task.id);
    await claim(t, task.id, 'w2');
    expect(await recover(t, task.id, 3, owner)).toEqual({ outcome: 'skipped' });
  });

  it('two reapers at once: exactly one acts', async () => {
    const t = tenant();
    for (const maxAttempts of [3, 1]) {
      const task = await createdTask(env.store, newTask(t));
      const owner = (await claim(t, task.id, 'w1'))!.task.leaseOwner!;
      await lapseLease(env.db, t, task.id);
      const outs = await Promise.all(
        Array.from({ length: 5 }, () => recover(t, task.id, maxAttempts, owner)),
      );
      expect(outs.filter((o) => o.outcome !== 'skipped')).toHaveLength(1);
      expect(await eventSeqs(env.db, t, task.id)).toEqual(maxAttempts === 1 ? [1, 2, 3] : [1, 2]);
    }
  });
});

describe('countRunArtifactChunks: what a retried run already stored', () => {
  /** loadRunInputs is the one-statement form of the three reads a run starts with. */
  const expectRunInputsAgree = async (tenantId: string, taskId: string) => {
    // Every stored chunk weighs against the artifact limit, one that replaced its artifact too.
    const rows = await env.db
      .selectFrom('artifact_chunks')
      .select(['parts', 'metadata'])
      .where('tenant_id', '=', tenantId)
      .where('task_id', '=', taskId)
      .execute();
    expect(await env.store.loadRunInputs(tenantId, taskId)).toEqual({
      history: await env.store.getHistory(tenantId, taskId),
      artifacts: await env.store.getArtifacts(tenantId, taskId),
      storedChunks: await env.store.countRunArtifactChunks(tenantId, taskId),
      storedArtifactBytes: rows.reduce((sum, row) => sum + artifactChunkBytes(row), 0),
    });
  };
  it('counts chunks per artifact since the task last entered WORKING from another state', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const claimed = (await claim(t, task.id, 'w1'))!.task;
    let version = claimed.version;
    const chunk = async (artifactId: string) => {
      const r = await env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: version,
        leaseOwner: claimed.leaseOwner!,
        patch: {},
        event: {
          artifactUpdate: {
            taskId: task.id,
            contextId: task.contextId,
            artifact: { artifactId, parts: [{ text: '.' }] },
            append: true,
          },
        },
        artifactChunk: { artifactId, append: true, lastChunk: false, parts: [{ text: '.' }] },
      });
      version = r.version;
    };
    const status = async (state: TaskState) => {
      const r = await env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: version,
        patch: { state },
        event: statusEvent(task, state),
      });
      version = r.version;
    };
    await chunk('a');
    await chunk('a');
    await chunk('b');
    await status(TaskState.WORKING); // a status message while working starts no new generation
    expect(await env.store.countRunArtifactChunks(t, task.id)).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    );
    await expectRunInputsAgree(t, task.id);
    await status(TaskState.INPUT_REQUIRED);
    await status(TaskState.WORKING);
    await chunk('a');
    expect(await env.store.countRunArtifactChunks(t, task.id)).toEqual(new Map([['a', 1]]));
    expect(await env.store.countRunArtifactChunks(tenant(), task.id)).toEqual(new Map());
    await expectRunInputsAgree(t, task.id);
    expect((await env.store.loadRunInputs(t, task.id)).history.length).toBeGreaterThan(0);
    expect(await env.store.loadRunInputs(tenant(), task.id)).toEqual({
      history: [],
      artifacts: [],
      storedChunks: new Map(),
      storedArtifactBytes: 0,
    });
  });

  it('a claim returns the run inputs a read right after it would (fresh task, and re-claim after a lapse)', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const first = (await claim(t, task.id, 'w1'))!;
    expect(first.inputs).toEqual(await env.store.loadRunInputs(t, task.id));
    expect(first.inputs.history).toHaveLength(1);
    expect(first.inputs.artifacts).toEqual([]);
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: first.task.version,
      leaseOwner: first.task.leaseOwner!,
      patch: {},
      event: {
        artifactUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          artifact: { artifactId: 'a', parts: [{ text: '.' }] },
          append: true,
        },
      },
      artifactChunk: { artifactId: 'a', append: true, lastChunk: false, parts: [{ text: '.' }] },
    });
    await lapseLease(env.db, t, task.id);
    const second = (await claim(t, task.id, 'w2'))!;
    expect(second.movedToWorking).toBe(false);
    expect(second.inputs).toEqual(await env.store.loadRunInputs(t, task.id));
    expect(second.inputs.storedChunks).toEqual(new Map([['a', 1]]));
  });
});
