import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendMessageRequest } from '@switchyard/protocol';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// MESSAGE_ID_IDEMPOTENCY=false: for conformance suites (the A2A TCK) that reuse messageIds for
// requests that are not retries. Duplicate detection is a MAY in the spec; the default keeps it.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ messageIdIdempotency: false });
  p.startWorker();
});
afterAll(() => p.close());

async function send(request: SendMessageRequest, agentId = 'echo') {
  const result = await p.service.send(alice, await p.agent(agentId), request);
  if (!('task' in result)) throw new Error('expected a task');
  return result.task;
}

describe('with messageId idempotency off', () => {
  it('every send is new work, whether its message repeats or differs', async () => {
    const message = userMessage('first');
    const a = await send({ message });
    const b = await send({ message });
    const c = await send({ message: { ...message, parts: [{ text: 'something else' }] } });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    for (const task of [a, b, c]) expect(task.history?.[0]?.messageId).toBe(message.messageId);
  });

  it('a continuation that repeats a messageId the task has seen is appended, not taken for a retry', async () => {
    const first = await send({ message: userMessage('book a flight to Lima') }, 'booking');
    const reused = userMessage('2', { taskId: first.id, messageId: first.history![0]!.messageId });
    const continued = await send({ message: reused }, 'booking');
    expect(continued.id).toBe(first.id);
    const history = await p.store.getHistory('acme', first.id);
    expect(history.filter((m) => m.messageId === reused.messageId)).toHaveLength(2);
  });
});
