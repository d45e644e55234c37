import { TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { ConflictError, isConflict } from '../src/errors.ts';
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
  userMessage,
} from './task-fixtures.ts';

const env = useTaskTestEnv();

describe('changeTask: one guarded statement (ARCHITECTURE §3 rule 2)', () => {
  it('applies the patch, bumps the version and appends the event at seq = new version', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const status = agentMessage('on it');
    const changed = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING, statusMessage: status, metadata: { k: 1 }, lastError: 'x' },
      event: statusEvent(task, TaskState.WORKING, status),
    });
    expect(changed).toMatchObject({
      version: 2,
      state: TaskState.WORKING,
      statusMessage: status,
      metadata: { k: 1 },
      lastError: 'x',
    });
    expect(changed.statusTimestamp.getTime()).toBeGreaterThanOrEqual(task.statusTimestamp.getTime());
    expect((await env.store.readEvents(t, task.id, 1)).map((e) => e.seq)).toEqual([2]);
  });

  it('null clears a field and an absent field keeps its value', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t, { metadata: { keep: true } }));
    const v2 = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: { statusMessage: agentMessage('hi') },
      event: statusEvent(task, TaskState.SUBMITTED),
    });
    const v3 = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 2,
      patch: { statusMessage: null },
      event: statusEvent(task, TaskState.SUBMITTED),
    });
    expect(v2.statusMessage).not.toBeNull();
    expect(v3.statusMessage).toBeNull();
    expect(v3.metadata).toEqual({ keep: true });
  });

  it('a stale expectedVersion is a ConflictError carrying the guard it failed', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const change = {
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING },
      event: statusEvent(task, TaskState.WORKING),
    };
    await env.store.changeTask(change);
    const err = await env.store.changeTask(change).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(isConflict(err)).toBe(true);
    expect(err).toMatchObject({ tenantId: t, taskId: task.id, expectedVersion: 1 });
  });

  it('10 racing writers with the same expectedVersion: exactly one wins, nine conflict', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        env.store.changeTask({
          tenantId: t,
          taskId: task.id,
          expectedVersion: 1,
          patch: { state: TaskState.WORKING, statusMessage: agentMessage(`writer ${i}`) },
          event: statusEvent(task, TaskState.WORKING),
          appendMessages: [userMessage(`from ${i}`)],
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(9);
    for (const r of rejected) expect(isConflict(r.reason)).toBe(true);
    expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2]);
    expect(await env.store.getHistory(t, task.id)).toHaveLength(2);
  });

  it('fromStates guards the edge: a terminal task cannot move again', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      fromStates: [TaskState.SUBMITTED],
      patch: { state: TaskState.CANCELED },
      event: statusEvent(task, TaskState.CANCELED),
    });
    await expect(
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 2,
        fromStates: [TaskState.SUBMITTED, TaskState.WORKING],
        patch: { state: TaskState.COMPLETED },
        event: statusEvent(task, TaskState.COMPLETED),
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 2,
        fromStates: [],
        patch: { state: TaskState.COMPLETED },
        event: statusEvent(task, TaskState.COMPLETED),
      }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("expectedVersion 'any' applies at whatever version under its state guard, and needs one", async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const working = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING },
      event: statusEvent(task, TaskState.WORKING),
    });
    expect(working.version).toBe(2);
    const canceled = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 'any',
      fromStates: [TaskState.SUBMITTED, TaskState.WORKING],
      patch: { state: TaskState.CANCELED },
      event: statusEvent(task, TaskState.CANCELED),
    });
    expect(canceled).toMatchObject({ version: 3, state: TaskState.CANCELED });
    expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2, 3]);
    await expect(
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 'any',
        fromStates: [TaskState.SUBMITTED, TaskState.WORKING],
        patch: { state: TaskState.CANCELED },
        event: statusEvent(task, TaskState.CANCELED),
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 'any',
        patch: { state: TaskState.WORKING },
        event: statusEvent(task, TaskState.WORKING),
      }),
    ).rejects.toThrow(/needs fromStates/);
    expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2, 3]);
  });

  // Found in review: history positions run on from the statement's snapshot, so an unversioned
  // append that waited on the row lock of a writer that appended too failed on a duplicate key.
  it("expectedVersion 'any' cannot append messages: only a version keeps the positions current", async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    await expect(
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 'any',
        fromStates: [TaskState.SUBMITTED],
        patch: { state: TaskState.WORKING },
        appendMessages: [userMessage('more')],
        event: statusEvent(task, TaskState.WORKING),
      }),
    ).rejects.toThrow(/appends messages needs an expected version/);
    expect(await eventSeqs(env.db, t, task.id)).toEqual([1]);
  });

  it('a stale lease owner cannot write after another worker re-claimed the task (§3 rule 4)', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const first = await env.store.claimTask({
      tenantId: t,
      taskId: task.id,
      workerId: 'w1',
      leaseMs: 60_000,
    });
    await lapseLease(env.db, t, task.id);
    const second = await env.store.claimTask({
      tenantId: t,
      taskId: task.id,
      workerId: 'w2',
      leaseMs: 60_000,
    });
    expect(first?.task.version).toBe(2);
    // Re-claiming a WORKING task bumps no version: only the lease fence stops the old owner.
    expect(second?.task.version).toBe(2);
    const write = (leaseOwner: string) =>
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 2,
        leaseOwner,
        patch: { state: TaskState.COMPLETED, clearLease: true },
        event: statusEvent(task, TaskState.COMPLETED),
      });
    await expect(write(first!.task.leaseOwner!)).rejects.toBeInstanceOf(ConflictError);
    const done = await write(second!.task.leaseOwner!);
    expect(done).toMatchObject({
      state: TaskState.COMPLETED,
      leaseOwner: null,
      leaseExpiresAt: null,
      version: 3,
    });
  });

  it('another tenant cannot change the task (tenant is part of every guard)', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    await expect(
      env.store.changeTask({
        tenantId: tenant(),
        taskId: task.id,
        expectedVersion: 1,
        patch: { state: TaskState.CANCELED },
        event: statusEvent(task, TaskState.CANCELED),
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect((await env.store.getTaskRecord(t, task.id))?.version).toBe(1);
  });

  it('a malformed task id is a conflict, not a database error', async () => {
    await expect(
      env.store.changeTask({
        tenantId: tenant(),
        taskId: 'not-a-uuid',
        expectedVersion: 1,
        patch: {},
        event: statusEvent({ id: 'x', contextId: 'c' }, TaskState.WORKING),
      }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('appendMessages adds history at the next positions, in order; events stay contiguous 1..version', async () => {
    const t = tenant();
    const input = newTask(t);
    const task = await createdTask(env.store, input);
    const m2 = userMessage('second');
    const m3 = userMessage('third');
    const question = { ...userMessage('which one?'), role: 'ROLE_AGENT' as const };
    const m5 = userMessage('fifth');
    let version = 1;
    for (const ms of [[m2], [m3], [question, m5]]) {
      const r = await env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: version,
        patch: { state: TaskState.WORKING },
        event: { message: ms.at(-1)! },
        appendMessages: ms,
      });
      version = r.version;
    }
    expect(await env.store.getHistory(t, task.id)).toEqual([input.message, m2, m3, question, m5]);
    expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2, 3, 4]);
    const kinds = await env.db
      .selectFrom('task_events')
      .select('kind')
      .where('task_id', '=', task.id)
      .orderBy('seq')
      .execute();
    expect(kinds.map((k) => k.kind)).toEqual(['task', 'message', 'message', 'message']);
  });

  it('artifactChunk is stored under seq = new version', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: {},
      event: {
        artifactUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
        },
      },
      artifactChunk: { artifactId: 'a', append: false, lastChunk: true, name: 'out', parts: [{ text: 'x' }] },
    });
    const rows = await env.db
      .selectFrom('artifact_chunks')
      .selectAll()
      .where('task_id', '=', task.id)
      .execute();
    expect(rows).toMatchObject([
      { seq: 2, artifact_id: 'a', append: false, last_chunk: true, name: 'out', parts: [{ text: 'x' }] },
    ]);
  });
});

describe('changeTask with a preceding chunk: the last chunk and the ending in one statement', () => {
  it('writes the chunk and its event at the next seq and the change at the one after, with outbox rows for both', async () => {
    const t = tenant();
    const task = await taskInState(
      env.store,
      newTask(t, { pushConfig: { id: 'c1', url: 'https://hooks.example/1' } }),
      TaskState.WORKING,
    );
    const chunk = { artifactId: 'out', append: false, lastChunk: true, parts: [{ text: 'all of it' }] };
    const artifactEvent = {
      artifactUpdate: {
        taskId: task.id,
        contextId: task.contextId,
        artifact: { artifactId: 'out', parts: chunk.parts },
        lastChunk: true,
      },
    };
    const done = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 2,
      patch: { state: TaskState.COMPLETED },
      event: statusEvent(task, TaskState.COMPLETED),
      precededBy: { artifactChunk: chunk, event: artifactEvent },
    });
    expect(done).toMatchObject({ version: 4, state: TaskState.COMPLETED, pushDue: true });
    const events = await env.store.readEvents(t, task.id, 2);
    expect(events.map((e) => [e.seq, Object.keys(e.payload)[0]])).toEqual([
      [3, 'artifactUpdate'],
      [4, 'statusUpdate'],
    ]);
    const chunks = await env.db
      .selectFrom('artifact_chunks')
      .select(['seq', 'artifact_id'])
      .where('tenant_id', '=', t)
      .where('task_id', '=', task.id)
      .execute();
    expect(chunks).toEqual([{ seq: 3, artifact_id: 'out' }]);
    expect((await deliverySeqs(env.db, t, task.id)).map((d) => d.seq)).toEqual([1, 2, 3, 4]);
    expect(await env.store.getArtifacts(t, task.id)).toEqual([{ artifactId: 'out', parts: chunk.parts }]);
  });

  it('a stale version writes neither the chunk nor the change', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const chunk = { artifactId: 'out', append: false, lastChunk: true, parts: [{ text: 'x' }] };
    await expect(
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 7,
        patch: { state: TaskState.COMPLETED },
        event: statusEvent(task, TaskState.COMPLETED),
        precededBy: {
          artifactChunk: chunk,
          event: {
            artifactUpdate: {
              taskId: task.id,
              contextId: task.contextId,
              artifact: { artifactId: 'out', parts: chunk.parts },
            },
          },
        },
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await env.store.readEvents(t, task.id, 1)).toEqual([]);
    expect(await env.store.getArtifacts(t, task.id)).toEqual([]);
  });
});

describe('push outbox rows are written with the event (ARCHITECTURE §7)', () => {
  it('one delivery per config for each event of a visible task', async () => {
    const t = tenant();
    const input = newTask(t, { pushConfig: { id: 'c1', url: 'https://hooks.example/1' } });
    const task = await createdTask(env.store, input);
    await env.db
      .insertInto('push_configs')
      .values({
        tenant_id: t,
        task_id: task.id,
        id: 'c2',
        url: 'https://hooks.example/2',
        token_enc: null,
        auth_scheme: null,
        auth_credentials_enc: null,
      })
      .execute();
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING },
      event: statusEvent(task, TaskState.WORKING),
    });
    expect(await deliverySeqs(env.db, t, task.id)).toEqual([
      { config_id: 'c1', seq: 1 },
      { config_id: 'c1', seq: 2 },
      { config_id: 'c2', seq: 2 },
    ]);
  });

  it('none while pending; the change that makes the task visible queues its own event', async () => {
    const t = tenant();
    const task = await createdTask(
      env.store,
      newTask(t, { visibility: 'pending', pushConfig: { id: 'c1', url: 'https://hooks.example/1' } }),
    );
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING },
      event: statusEvent(task, TaskState.WORKING),
    });
    expect(await deliverySeqs(env.db, t, task.id)).toEqual([]);
    const visible = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 2,
      patch: { visibility: 'task' },
      event: statusEvent(task, TaskState.WORKING),
    });
    expect(await deliverySeqs(env.db, t, task.id)).toEqual([{ config_id: 'c1', seq: 3 }]);
    expect(visible.pushDue).toBe(true);
  });

  it('each write says whether it queued deliveries, so pushers wake only when needed', async () => {
    const t = tenant();
    const plain = await createdTask(env.store, newTask(t));
    expect(plain.pushDue).toBe(false);
    const changed = await env.store.changeTask({
      tenantId: t,
      taskId: plain.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING },
      event: statusEvent(plain, TaskState.WORKING),
    });
    expect(changed.pushDue).toBe(false);
    const hooked = await createdTask(
      env.store,
      newTask(t, { pushConfig: { id: 'c1', url: 'https://hooks.example/1' } }),
    );
    expect(hooked.pushDue).toBe(true);
    const pending = await createdTask(
      env.store,
      newTask(t, { visibility: 'pending', pushConfig: { id: 'c1', url: 'https://hooks.example/1' } }),
    );
    expect(pending.pushDue).toBe(false);
  });

  it('none for a task answered with a Message', async () => {
    const t = tenant();
    const task = await taskInState(
      env.store,
      newTask(t, { visibility: 'pending', pushConfig: { id: 'c1', url: 'https://hooks.example/1' } }),
      TaskState.WORKING,
    );
    const reply = agentMessage('done');
    const changed = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: task.version,
      patch: { state: TaskState.COMPLETED, visibility: 'message', reply },
      event: { message: reply },
    });
    expect(changed).toMatchObject({ visibility: 'message', reply });
    expect(await deliverySeqs(env.db, t, task.id)).toEqual([]);
  });
});
