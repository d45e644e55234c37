import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isA2AErrorOfKind, TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, bob, mallory, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
  p.startWorker();
});
afterAll(() => p.close());

describe('send (ARCHITECTURE.md §4)', () => {
  it('a blocking send to echo returns the COMPLETED task with the echo artifact', async () => {
    const agent = await p.agent('echo');
    const result = await p.service.send(alice, agent, { message: userMessage('hello') });
    expect('task' in result).toBe(true);
    if (!('task' in result)) return;
    expect(result.task.status.state).toBe(TaskState.COMPLETED);
    expect(result.task.artifacts?.[0]?.parts).toEqual([{ text: 'hello' }]);
    expect(result.task.history?.[0]?.parts).toEqual([{ text: 'hello' }]);
  });

  it('the last artifact chunk and COMPLETED commit in one transaction, as separate events', async () => {
    const agent = await p.agent('echo');
    const result = await p.service.send(alice, agent, { message: userMessage('one write') });
    if (!('task' in result)) throw new Error('expected a task');
    const { rows } = await p.db.pool.query<{ seq: number; kind: string; created_at: Date }>(
      'select seq, kind, created_at from task_events where task_id = $1 order by seq',
      [result.task.id],
    );
    expect(rows.map((r) => r.kind)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    // now() is the transaction's start: one timestamp for both means one transaction.
    const [, , chunk, done] = rows;
    expect(chunk!.created_at.getTime()).toBe(done!.created_at.getTime());
    expect(rows[1]!.created_at.getTime()).not.toBe(chunk!.created_at.getTime());
  });

  it('§5 an agent may answer with a Message, which never shows up in GetTask', async () => {
    const agent = await p.agent('echo');
    const result = await p.service.send(alice, agent, { message: userMessage('reply') });
    expect('message' in result).toBe(true);
    if (!('message' in result)) return;
    expect(result.message.role).toBe('ROLE_AGENT');
    const list = await p.service.listTasks(alice, 'echo', {});
    expect(list.tasks.every((t) => t.id !== result.message.taskId)).toBe(true);
  });

  it('§5 a Message the agent sends after its quick-reply window completes the task with it', async () => {
    // The window (300 ms) closes first, so the task is visible when the reply is written.
    const agent = await p.slowAgent('slow-late-reply', { steps: 0, delayMs: 800 });
    const result = await p.service.send(alice, agent, { message: userMessage('late') });
    if (!('task' in result)) throw new Error('expected a task');
    expect(result.task.status.state).toBe(TaskState.COMPLETED);
    expect(result.task.status.message?.parts).toEqual([{ text: 'done after 800 ms' }]);
    expect(result.task.status.message?.taskId).toBe(result.task.id);
    const events = await p.store.readEvents('acme', result.task.id, 0);
    expect(events.at(-1)?.payload.statusUpdate?.status.state).toBe(TaskState.COMPLETED);
    expect(events.filter((e) => e.payload.message)).toEqual([]);
  });

  it('§7.2 rule 13 returnImmediately answers at once with a Task that later completes', async () => {
    const agent = await p.agent('echo');
    const result = await p.service.send(alice, agent, {
      message: userMessage('later'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in result)) throw new Error('expected a task');
    expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(result.task.status.state);
    const done = await waitFor(async () => {
      const t = await p.service.getTask(alice, 'echo', result.task.id);
      return t.status.state === TaskState.COMPLETED && t;
    });
    expect(done.artifacts?.[0]?.parts).toEqual([{ text: 'later' }]);
  });

  it('the returnImmediately Task (built without a read) is the stored task as GetTask shows it', async () => {
    const agent = await p.agent('echo');
    for (const historyLength of [undefined, 0, 1, 5]) {
      const message = userMessage('fresh');
      const result = await p.service.send(alice, agent, {
        message,
        configuration: { returnImmediately: true, ...(historyLength !== undefined ? { historyLength } : {}) },
      });
      if (!('task' in result)) throw new Error('expected a task');
      const { task } = result;
      expect(task.artifacts).toBeUndefined();
      if (historyLength === 0) expect(task).not.toHaveProperty('history');
      else expect(task.history).toEqual([{ ...message, contextId: task.contextId, taskId: task.id }]);
      const stored = await p.service.getTask(alice, 'echo', task.id);
      expect(stored.history?.[0]).toEqual({ ...message, contextId: task.contextId, taskId: task.id });
      expect(stored.contextId).toBe(task.contextId);
    }
  });

  it('§7.2 rule 10 a message to an input-required task continues it; §7.1 rule 3 infers contextId', async () => {
    const agent = await p.agent('booking');
    const first = await p.service.send(alice, agent, { message: userMessage('book a flight to Paris') });
    if (!('task' in first)) throw new Error('expected a task');
    expect(first.task.status.state).toBe(TaskState.INPUT_REQUIRED);
    const second = await p.service.send(alice, agent, {
      message: userMessage('2', { taskId: first.task.id }),
    });
    if (!('task' in second)) throw new Error('expected a task');
    expect(second.task.status.state).toBe(TaskState.COMPLETED);
    expect(second.task.contextId).toBe(first.task.contextId);
  });

  it('the question an input-required task asked moves into its history, before the answer', async () => {
    const agent = await p.agent('booking');
    const book = userMessage('book a flight to Rome');
    const first = await p.service.send(alice, agent, { message: book });
    if (!('task' in first)) throw new Error('expected a task');
    const question = first.task.status.message;
    expect(question?.role).toBe('ROLE_AGENT');
    const answer = userMessage('2', { taskId: first.task.id });
    const second = await p.service.send(alice, agent, { message: answer });
    if (!('task' in second)) throw new Error('expected a task');
    const history = (await p.service.getTask(alice, 'booking', first.task.id)).history ?? [];
    expect(history.map((m) => m.messageId)).toEqual([book.messageId, question!.messageId, answer.messageId]);
    expect(history[1]).toEqual(question);
    const last = await p.service.getTask(alice, 'booking', first.task.id, 2);
    expect(last.history?.map((m) => m.role)).toEqual(['ROLE_AGENT', 'ROLE_USER']);
  });

  it('a canceled input-required task keeps its question in the history, not on the CANCELED status', async () => {
    const agent = await p.agent('booking');
    const book = userMessage('book a flight to Oslo');
    const first = await p.service.send(alice, agent, { message: book });
    if (!('task' in first)) throw new Error('expected a task');
    const question = first.task.status.message!;
    const canceled = await p.service.cancelTask(alice, 'booking', first.task.id);
    expect(canceled.status.state).toBe(TaskState.CANCELED);
    expect(canceled.status.message).toBeUndefined();
    expect(canceled.history?.map((m) => m.messageId)).toEqual([book.messageId, question.messageId]);
    const events = await p.store.readEvents('acme', first.task.id, 0, 100);
    expect(events.at(-1)?.payload.statusUpdate?.status).toEqual(canceled.status);
  });

  it('a canceled running task drops its progress message with its state', async () => {
    const agent = await p.slowAgent('stepper', { delayMs: 30_000, steps: 100, progress: 'status' });
    const sent = await p.service.send(alice, agent, {
      message: userMessage('go'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    await waitFor(async () => (await p.store.getTaskRecord('acme', sent.task.id))?.statusMessage);
    const canceled = await p.service.cancelTask(alice, 'stepper', sent.task.id);
    expect(canceled.status.state).toBe(TaskState.CANCELED);
    expect(canceled.status.message).toBeUndefined();
  });

  it('§7.2 rule 9 a message to a terminal task is UnsupportedOperation', async () => {
    const agent = await p.agent('echo');
    const done = await p.service.send(alice, agent, { message: userMessage('x') });
    if (!('task' in done)) throw new Error('expected a task');
    await expect(
      p.service.send(alice, agent, { message: userMessage('again', { taskId: done.task.id }) }),
    ).rejects.toSatisfy((e) => isA2AErrorOfKind(e, 'UnsupportedOperation'));
  });

  it('§7.1 rule 4 a contextId that differs from the task is InvalidParams and changes nothing', async () => {
    const agent = await p.agent('booking');
    const first = await p.service.send(alice, agent, { message: userMessage('book a hotel in Rome') });
    if (!('task' in first)) throw new Error('expected a task');
    const before = await p.store.getTaskRecord('acme', first.task.id);
    await expect(
      p.service.send(alice, agent, {
        message: userMessage('3', { taskId: first.task.id, contextId: 'other' }),
      }),
    ).rejects.toSatisfy((e) => isA2AErrorOfKind(e, 'InvalidParams'));
    const after = await p.store.getTaskRecord('acme', first.task.id);
    expect(after?.version).toBe(before?.version);
  });

  it('§7.1 rule 2 an unknown taskId is TaskNotFound and creates nothing', async () => {
    const agent = await p.agent('echo');
    await expect(
      p.service.send(alice, agent, { message: userMessage('x', { taskId: crypto.randomUUID() }) }),
    ).rejects.toSatisfy((e) => isA2AErrorOfKind(e, 'TaskNotFound'));
  });
});

describe('isolation (ARCHITECTURE.md §3 rule 6)', () => {
  it('another principal or tenant gets TaskNotFound on every operation; a tenant admin sees all', async () => {
    const agent = await p.agent('echo');
    const r = await p.service.send(alice, agent, { message: userMessage('mine') });
    if (!('task' in r)) throw new Error('expected a task');
    for (const other of [bob, mallory]) {
      await expect(p.service.getTask(other, 'echo', r.task.id)).rejects.toSatisfy((e) =>
        isA2AErrorOfKind(e, 'TaskNotFound'),
      );
      await expect(p.service.cancelTask(other, 'echo', r.task.id)).rejects.toSatisfy((e) =>
        isA2AErrorOfKind(e, 'TaskNotFound'),
      );
      const list = await p.service.listTasks(other, 'echo', {});
      expect(list.tasks.some((t) => t.id === r.task.id)).toBe(false);
    }
    const admin = { ...bob, admin: true };
    expect((await p.service.getTask(admin, 'echo', r.task.id)).id).toBe(r.task.id);
  });
});
