import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isA2AErrorOfKind, TaskState, type SendMessageRequest } from '@switchyard/protocol';
import { createDb, createSecretBox, loadPushConfigSecrets } from '@switchyard/store';
import { alice, SECRET, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
  p.startWorker();
});
afterAll(() => p.close());

const hook = (path: string) => ({ url: `http://127.0.0.1:9/${path}` });

async function rows() {
  const count = async (table: string) =>
    Number((await p.db.pool.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);
  return {
    tasks: await count('tasks'),
    messages: await count('task_messages'),
    events: await count('task_events'),
    pushConfigs: await count('push_configs'),
  };
}

async function send(request: SendMessageRequest, agentId = 'echo') {
  const result = await p.service.send(alice, await p.agent(agentId), request);
  if (!('task' in result)) throw new Error('expected a task');
  return result.task;
}

async function refused(request: SendMessageRequest, agentId = 'echo') {
  const before = await rows();
  const error = await p.service.send(alice, await p.agent(agentId), request).then(
    () => null,
    (err: unknown) => err,
  );
  expect(isA2AErrorOfKind(error, 'InvalidParams')).toBe(true);
  expect((error as Error).message).toMatch(/messageId was already used/);
  expect(await rows()).toEqual(before);
}

describe('a send that reuses a messageId (ARCHITECTURE.md §3 rule 5)', () => {
  it('is answered as a retry when it asks for the same thing, however it wants the answer', async () => {
    const message = userMessage('same', { metadata: { b: 1, a: [1, { c: 'x' }] } });
    const first = await send({ message, configuration: { taskPushNotificationConfig: hook('a') } });
    const before = await rows();
    // Key order, blocking and historyLength do not make it another request; nor does leaving out
    // the contextId the server chose, or naming it.
    const reordered = { ...message, metadata: { a: [1, { c: 'x' }], b: 1 } };
    for (const retry of [
      { message: reordered, configuration: { taskPushNotificationConfig: hook('a') } },
      { message, configuration: { returnImmediately: true, historyLength: 0 } },
      { message: { ...message, contextId: first.contextId } },
    ])
      expect((await send(retry)).id).toBe(first.id);
    expect(await rows()).toEqual(before);
  });

  it('is refused, changing nothing, when its message differs', async () => {
    const message = userMessage('original');
    const first = await send({ message });
    await refused({ message: { ...message, parts: [{ text: 'something else' }] } });
    await refused({ message: { ...message, metadata: { extra: true } } });
    await refused({ message: { ...message, contextId: crypto.randomUUID() } });
    expect((await send({ message })).id).toBe(first.id);
  });

  it('is refused when it adds a push config the first send did not register', async () => {
    const message = userMessage('no webhook first');
    const first = await send({ message });
    await refused({ message, configuration: { taskPushNotificationConfig: hook('late') } });
    const withHook = userMessage('webhook first');
    await send({ message: withHook, configuration: { taskPushNotificationConfig: hook('one') } });
    await refused({ message: withHook, configuration: { taskPushNotificationConfig: hook('two') } });
    // Leaving the webhook out of a retry drops nothing, so it is still a retry.
    expect((await send({ message })).id).toBe(first.id);
  });

  it('continuing a task registers the push config it names, once, however often it is retried', async () => {
    const first = await send({ message: userMessage('book a flight to Lima') }, 'booking');
    const answer = userMessage('2', { taskId: first.id });
    const configuration = { taskPushNotificationConfig: hook('continued') };
    await send({ message: answer, configuration }, 'booking');
    await send({ message: answer, configuration }, 'booking');
    const { configs } = await p.service.push.list(alice, 'booking', first.id, { pageSize: 10 });
    expect(configs?.map((c) => c.url)).toEqual([hook('continued').url]);
  });

  it('concurrent retries of a continuation register its webhook once, with the winner’s token', async () => {
    const first = await send({ message: userMessage('book a flight to Quito') }, 'booking');
    const answer = userMessage('2', { taskId: first.id });
    const rival = userMessage('3', { taskId: first.id });
    const booking = await p.agent('booking');
    // The rival names the same webhook with its own token: whichever answer wins, the webhook is
    // registered once, with the winner's token; the refused answer registers nothing.
    const named = (token: string) => ({ taskPushNotificationConfig: { ...hook('answer'), token } });
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 3 }, () =>
        p.service.send(alice, booking, { message: answer, configuration: named('answer-token') }),
      ),
      p.service.send(alice, booking, { message: rival, configuration: named('rival-token') }),
    ]);
    const rivalWon = outcomes[3]!.status === 'fulfilled';
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBe(rivalWon ? 1 : 3);
    const { configs } = await p.service.push.list(alice, 'booking', first.id, { pageSize: 10 });
    expect(configs?.map((c) => c.url)).toEqual([hook('answer').url]);
    const stored = await loadPushConfigSecrets(
      createDb(p.db.pool),
      createSecretBox(SECRET),
      'acme',
      first.id,
      configs![0]!.id!,
    );
    expect(stored?.token).toBe(rivalWon ? 'rival-token' : 'answer-token');
  });

  it('continuing a task: a retry is not appended again, a different message is refused', async () => {
    const first = await send({ message: userMessage('book a flight to Oslo') }, 'booking');
    expect(first.status.state).toBe(TaskState.INPUT_REQUIRED);
    const answer = userMessage('3', { taskId: first.id });
    await send({ message: answer }, 'booking');
    await send({ message: answer }, 'booking');
    await refused({ message: { ...answer, parts: [{ text: '4' }] } }, 'booking');
    const history = await p.store.getHistory('acme', first.id);
    expect(history.filter((m) => m.messageId === answer.messageId)).toHaveLength(1);
  });
});

// Found in review: the task row kept only the active span's trace context, so with tracing off
// in the process that took the send, the caller's traceparent rode on the first job alone and
// every run the reaper started later lost it.
describe("a send's trace context, with tracing off here", () => {
  it("is kept on the task when well formed, so later runs join the caller's trace", async () => {
    const agent = (await p.admin.getAgent('acme', 'echo'))!;
    const traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const send = (trace: Record<string, string>) =>
      p.service.send(
        alice,
        agent,
        { message: userMessage('traced'), configuration: { returnImmediately: true } },
        trace,
      );
    const stored = async (id: string) =>
      (
        await p.db.pool.query<{ trace_context: unknown }>('SELECT trace_context FROM tasks WHERE id = $1', [
          id,
        ])
      ).rows[0]?.trace_context;
    const kept = await send({ traceparent, tracestate: 'k=v' });
    if (!('task' in kept)) throw new Error('expected a task');
    expect(await stored(kept.task.id)).toEqual({ traceparent, tracestate: 'k=v' });
    const malformed = await send({ traceparent: 'not-a-traceparent' });
    if (!('task' in malformed)) throw new Error('expected a task');
    expect(await stored(malformed.task.id)).toBeNull();
  });
});
