import { TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import type { Caller, TaskRecord } from '../src/task-store.ts';
import {
  agentMessage,
  createdTask,
  lapseLease,
  newTask,
  useTaskTestEnv,
  statusEvent,
  tenant,
  userMessage,
} from './task-fixtures.ts';

const env = useTaskTestEnv();

const alice = (tenantId: string): Caller => ({ tenantId, principal: 'alice', admin: false });

/** A visible task with three history messages and two artifacts built from chunks. */
async function richTask(t: string): Promise<TaskRecord> {
  const input = newTask(t);
  const task = await createdTask(env.store, input);
  let version = 1;
  const change = async (extra: object) => {
    const r = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: version,
      patch: {},
      event: statusEvent(task, TaskState.WORKING),
      ...extra,
    });
    version = r.version;
  };
  await change({ appendMessages: [userMessage('two')], patch: { state: TaskState.WORKING } });
  await change({
    artifactChunk: {
      artifactId: 'doc',
      append: false,
      lastChunk: false,
      name: 'Doc',
      parts: [{ text: 'Hel' }],
    },
  });
  await change({
    artifactChunk: {
      artifactId: 'img',
      append: false,
      lastChunk: true,
      parts: [{ url: 'https://x/y.png', mediaType: 'image/png' }],
    },
  });
  await change({
    artifactChunk: { artifactId: 'doc', append: true, lastChunk: true, parts: [{ text: 'lo' }] },
  });
  await change({
    appendMessages: [userMessage('three')],
    patch: { state: TaskState.COMPLETED, statusMessage: agentMessage('done') },
  });
  return task;
}

describe('getTask (digest §7.4 rule 19)', () => {
  it('returns the wire Task with whole artifacts and full history', async () => {
    const t = tenant();
    const task = await richTask(t);
    const view = await env.store.getTask(alice(t), task.id);
    expect(view).toMatchObject({
      id: task.id,
      contextId: task.contextId,
      status: { state: TaskState.COMPLETED, message: { parts: [{ text: 'done' }] } },
      artifacts: [
        { artifactId: 'doc', name: 'Doc', parts: [{ text: 'Hel' }, { text: 'lo' }] },
        { artifactId: 'img', parts: [{ url: 'https://x/y.png', mediaType: 'image/png' }] },
      ],
    });
    expect(view?.status.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(view?.history?.map((m) => m.parts[0])).toEqual([
      { text: 'hello' },
      { text: 'two' },
      { text: 'three' },
    ]);
    expect(view).not.toHaveProperty('metadata');
    expect(JSON.stringify(view)).not.toContain('null');
  });

  it('trims history per historyLength (digest §7.3): N → newest N, 0 → key omitted', async () => {
    const t = tenant();
    const task = await richTask(t);
    const two = await env.store.getTask(alice(t), task.id, { historyLength: 2 });
    expect(two?.history?.map((m) => m.parts[0])).toEqual([{ text: 'two' }, { text: 'three' }]);
    const none = await env.store.getTask(alice(t), task.id, { historyLength: 0 });
    expect(none).not.toHaveProperty('history');
    const many = await env.store.getTask(alice(t), task.id, { historyLength: 50 });
    expect(many?.history).toHaveLength(3);
  });

  it('omits artifacts when asked to, and when there are none', async () => {
    const t = tenant();
    const rich = await richTask(t);
    expect(await env.store.getTask(alice(t), rich.id, { includeArtifacts: false })).not.toHaveProperty(
      'artifacts',
    );
    const plain = await createdTask(env.store, newTask(t));
    expect(await env.store.getTask(alice(t), plain.id)).not.toHaveProperty('artifacts');
  });

  it('hides other principals’ tasks from users but not from tenant admins', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    expect(await env.store.getTask({ tenantId: t, principal: 'bob', admin: false }, task.id)).toBeNull();
    expect(await env.store.getTask({ tenantId: t, principal: 'bob', admin: true }, task.id)).not.toBeNull();
  });

  it('through an agent, only that agent’s task is found, for users and admins alike', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    expect(await env.store.getTask(alice(t), task.id, { agentId: 'echo' })).not.toBeNull();
    expect(await env.store.getTask(alice(t), task.id, { agentId: 'booking' })).toBeNull();
    const admin = { tenantId: t, principal: 'bob', admin: true };
    expect(await env.store.getTask(admin, task.id, { agentId: 'booking' })).toBeNull();
  });

  it('cross-tenant reads return nothing (ARCHITECTURE §3 rule 6)', async () => {
    const t = tenant();
    const task = await richTask(t);
    const other = tenant();
    expect(await env.store.getTask({ tenantId: other, principal: 'alice', admin: true }, task.id)).toBeNull();
    expect(await env.store.getTaskRecord(other, task.id)).toBeNull();
    expect(await env.store.loadTaskView(other, task.id)).toBeNull();
    expect(await env.store.readEvents(other, task.id, 0)).toEqual([]);
    expect(await env.store.getHistory(other, task.id)).toEqual([]);
    expect(await env.store.getArtifacts(other, task.id)).toEqual([]);
  });

  it('pending and Message-reply tasks are not Tasks for GetTask, but loadTaskView shows them', async () => {
    const t = tenant();
    const pending = await createdTask(env.store, newTask(t, { visibility: 'pending' }));
    const reply = await createdTask(env.store, newTask(t, { visibility: 'message' }));
    expect(await env.store.getTask(alice(t), pending.id)).toBeNull();
    expect(await env.store.getTask({ tenantId: t, principal: 'alice', admin: true }, reply.id)).toBeNull();
    expect(await env.store.loadTaskView(t, pending.id)).toMatchObject({
      id: pending.id,
      status: { state: TaskState.SUBMITTED },
    });
    expect(await env.store.getTaskRecord(t, reply.id)).toMatchObject({ visibility: 'message' });
  });

  it('a malformed id reads as not found, not as a database error', async () => {
    const t = tenant();
    expect(await env.store.getTask(alice(t), 'nope')).toBeNull();
    expect(await env.store.getTaskRecord(t, "x' OR 1=1 --")).toBeNull();
    expect(await env.store.readEvents(t, 'nope', 0)).toEqual([]);
  });
});

describe('readEvents, getHistory, getArtifacts', () => {
  it('reads the log after a seq, in order, bounded by limit; seqs are contiguous 1..version', async () => {
    const t = tenant();
    const task = await richTask(t);
    const all = await env.store.readEvents(t, task.id, 0);
    const record = await env.store.getTaskRecord(t, task.id);
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: record!.version }, (_, i) => i + 1));
    expect(all[0]?.createdAt).toBeInstanceOf(Date);
    expect((await env.store.readEvents(t, task.id, 2, 2)).map((e) => e.seq)).toEqual([3, 4]);
    expect(await env.store.readEvents(t, task.id, record!.version)).toEqual([]);
  });

  it('readVersions reads many tasks in one statement; unknown, foreign-tenant and malformed ids are absent', async () => {
    const t = tenant();
    const rich = await richTask(t);
    const fresh = await createdTask(env.store, newTask(t));
    const richVersion = (await env.store.getTaskRecord(t, rich.id))!.version;
    const versions = await env.store.readVersions([
      { tenantId: t, taskId: rich.id },
      { tenantId: t, taskId: fresh.id },
      { tenantId: tenant(), taskId: rich.id },
      { tenantId: t, taskId: '00000000-0000-4000-8000-000000000000' },
      { tenantId: t, taskId: 'not-a-uuid' },
    ]);
    expect(versions.sort((a, b) => b.version - a.version)).toEqual([
      { tenantId: t, taskId: rich.id, version: richVersion },
      { tenantId: t, taskId: fresh.id, version: 1 },
    ]);
    expect(await env.store.readVersions([])).toEqual([]);
  });

  it('getArtifacts composes the chunks; getHistory is the whole conversation', async () => {
    const t = tenant();
    const task = await richTask(t);
    expect((await env.store.getArtifacts(t, task.id)).map((a) => a.artifactId)).toEqual(['doc', 'img']);
    expect(await env.store.getHistory(t, task.id)).toHaveLength(3);
  });

  it('findHistoryMessage returns the one message with that messageId, or null', async () => {
    const t = tenant();
    const task = await richTask(t);
    const history = await env.store.getHistory(t, task.id);
    const second = history[1]!;
    expect(await env.store.findHistoryMessage(t, task.id, second.messageId)).toEqual(second);
    expect(await env.store.findHistoryMessage(t, task.id, 'no-such-message')).toBeNull();
    expect(await env.store.findHistoryMessage(tenant(), task.id, second.messageId)).toBeNull();
    expect(await env.store.findHistoryMessage(t, 'not-a-uuid', second.messageId)).toBeNull();
  });
});

describe('context memory', () => {
  it('is undefined until set, then the latest value, per tenant/agent/owner/context/key', async () => {
    const t = tenant();
    const scope = { tenantId: t, agentId: 'echo', owner: 'alice', contextId: 'ctx' };
    expect(await env.store.getMemory(scope, 'k')).toBeUndefined();
    await env.store.setMemory(scope, 'k', { answer: 42 });
    await env.store.setMemory(scope, 'k', { answer: 43 });
    await env.store.setMemory(scope, 'other', 'x');
    expect(await env.store.getMemory(scope, 'k')).toEqual({ answer: 43 });
    expect(await env.store.getMemory({ ...scope, tenantId: tenant() }, 'k')).toBeUndefined();
    expect(await env.store.getMemory({ ...scope, agentId: 'other-agent' }, 'k')).toBeUndefined();
    // Another principal reusing the contextId has a conversation of its own.
    const bob = { ...scope, owner: 'bob' };
    expect(await env.store.getMemory(bob, 'k')).toBeUndefined();
    await env.store.setMemory(bob, 'k', 'bob');
    expect(await env.store.getMemory(scope, 'k')).toEqual({ answer: 43 });
    expect(await env.store.getMemory(bob, 'k')).toBe('bob');
  });

  it("a run's write is fenced by its lease: refused, and nothing written, once another claim holds the task", async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const scope = { tenantId: t, agentId: task.agentId, owner: task.owner, contextId: task.contextId };
    const claim = async (workerId: string) =>
      (await env.store.claimTask({ tenantId: t, taskId: task.id, workerId, leaseMs: 60_000 }))!.task
        .leaseOwner!;
    const first = await claim('w1');
    expect(await env.store.setRunMemory(scope, { taskId: task.id, leaseOwner: first }, 'k', 'first')).toBe(
      true,
    );
    await lapseLease(env.db, t, task.id);
    const second = await claim('w2');
    expect(await env.store.setRunMemory(scope, { taskId: task.id, leaseOwner: first }, 'k', 'stale')).toBe(
      false,
    );
    expect(await env.store.getMemory(scope, 'k')).toBe('first');
    expect(await env.store.setRunMemory(scope, { taskId: task.id, leaseOwner: second }, 'k', 'second')).toBe(
      true,
    );
    expect(await env.store.getMemory(scope, 'k')).toBe('second');
    // Another tenant's task of the same id never fences this one in.
    expect(
      await env.store.setRunMemory(
        { ...scope, tenantId: tenant() },
        { taskId: task.id, leaseOwner: second },
        'k',
        'x',
      ),
    ).toBe(false);
  });
});
