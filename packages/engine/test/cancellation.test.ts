import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isA2AErrorOfKind, isTerminal, TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
  p.startWorker({ concurrency: 8 });
});
afterAll(() => p.close());

async function terminalEvents(taskId: string) {
  const events = await p.store.readEvents('acme', taskId, 0);
  return events.filter((e) => e.payload.statusUpdate && isTerminal(e.payload.statusUpdate.status.state));
}

describe('cancellation (ARCHITECTURE.md §6)', () => {
  it('§7.5 CancelTask moves a running task to CANCELED at once and the agent stops', async () => {
    const agent = await p.slowAgent('slow-steps', { steps: 200, delayMs: 50 });
    const r = await p.service.send(alice, agent, {
      message: userMessage('go'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in r)) throw new Error('expected a task');
    await waitFor(async () => (await p.store.getTaskRecord('acme', r.task.id))?.leaseOwner);
    const canceled = await p.service.cancelTask(alice, 'slow-steps', r.task.id);
    expect(canceled.status.state).toBe(TaskState.CANCELED);
    // The worker lets go: the lease is cleared and no event follows the cancel.
    const record = await waitFor(async () => {
      const rec = await p.store.getTaskRecord('acme', r.task.id);
      return rec && rec.leaseOwner === null && rec;
    });
    const versionAfterCancel = record.version;
    await new Promise((res) => setTimeout(res, 300));
    expect((await p.store.getTaskRecord('acme', r.task.id))?.version).toBe(versionAfterCancel);
  });

  it('§7.5 rule 27 cancel of a terminal task is TaskNotCancelable', async () => {
    const r = await p.service.send(alice, await p.agent('echo'), { message: userMessage('x') });
    if (!('task' in r)) throw new Error('expected a task');
    await expect(p.service.cancelTask(alice, 'echo', r.task.id)).rejects.toSatisfy((e) =>
      isA2AErrorOfKind(e, 'TaskNotCancelable'),
    );
  });

  it('cancel racing completion, 100 times: exactly one terminal state each, the loser gets a conflict', async () => {
    const echo = await p.agent('echo');
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const r = await p.service.send(alice, echo, {
          message: userMessage('race'),
          configuration: { returnImmediately: true },
        });
        if (!('task' in r)) throw new Error('expected a task');
        // Let some runs start so both orders of the race happen.
        await new Promise((res) => setTimeout(res, Math.random() * 30));
        const cancel = await p.service.cancelTask(alice, 'echo', r.task.id).then(
          () => 'canceled' as const,
          (e: unknown) =>
            isA2AErrorOfKind(e, 'TaskNotCancelable') ? ('not-cancelable' as const) : Promise.reject(e),
        );
        return { id: r.task.id, cancel };
      }),
    );
    for (const { id, cancel } of outcomes) {
      const final = await waitFor(async () => {
        const rec = await p.store.getTaskRecord('acme', id);
        return rec && isTerminal(rec.state) && rec.leaseOwner === null && rec;
      });
      const terminals = await terminalEvents(id);
      expect(terminals).toHaveLength(1);
      expect(final.state).toBe(cancel === 'canceled' ? TaskState.CANCELED : TaskState.COMPLETED);
    }
  });
});

describe('cancel racing a question', () => {
  it('over 100 runs: a question asked before the cancel committed ends in the history, never lost', async () => {
    const booking = await p.agent('booking');
    const sendThenCancel = async () => {
      const r = await p.service.send(alice, booking, {
        message: userMessage('book a flight to Lima'),
        configuration: { returnImmediately: true },
      });
      if (!('task' in r)) throw new Error('expected a task');
      // Some cancels read the task running and write after it asked (the race); some before.
      await new Promise((res) => setTimeout(res, Math.random() * 40));
      await p.service.cancelTask(alice, 'booking', r.task.id);
      return r.task.id;
    };
    const ids: string[] = [];
    // Eight at a time, one per worker slot, so the cancels meet live runs rather than a backlog.
    for (let round = 0; round < 13; round++)
      ids.push(...(await Promise.all(Array.from({ length: 8 }, sendThenCancel))));
    let asked = 0;
    for (const id of ids) {
      const events = (await p.store.readEvents('acme', id, 0)).map((e) => e.payload.statusUpdate?.status);
      const question = events.find((s) => s?.state === TaskState.INPUT_REQUIRED)?.message;
      expect(events.at(-1)?.state).toBe(TaskState.CANCELED);
      const task = await p.service.getTask(alice, 'booking', id);
      expect(task.status.message).toBeUndefined();
      if (!question) continue;
      asked++;
      expect(task.history?.map((m) => m.messageId)).toContain(question.messageId);
    }
    // Both orders happened: some tasks asked before their cancel, some were canceled first.
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(ids.length);
  });
});

describe('idempotency (ARCHITECTURE.md §3 rule 5)', () => {
  it('the same message sent 20 times concurrently with one messageId: one task, one execution', async () => {
    const echo = await p.agent('echo');
    const message = userMessage('once');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => p.service.send(alice, echo, { message })),
    );
    const ids = new Set(results.map((r) => ('task' in r ? r.task.id : r.message.messageId)));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    const record = await p.store.getTaskRecord('acme', id!);
    expect(record?.attempts).toBe(1);
    const events = await p.store.readEvents('acme', id!, 0);
    expect(events.filter((e) => e.payload.artifactUpdate)).toHaveLength(1);
  });

  it('a retried continuation (same messageId) is appended once', async () => {
    const booking = await p.agent('booking');
    const first = await p.service.send(alice, booking, { message: userMessage('book a flight to Oslo') });
    if (!('task' in first)) throw new Error('expected a task');
    const answer = userMessage('3', { taskId: first.task.id });
    await Promise.all(Array.from({ length: 5 }, () => p.service.send(alice, booking, { message: answer })));
    const history = await p.store.getHistory('acme', first.task.id);
    expect(history.filter((m) => m.messageId === answer.messageId)).toHaveLength(1);
  });
});
