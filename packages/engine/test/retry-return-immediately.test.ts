import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// ARCHITECTURE.md §5: returnImmediately is answered with a Task. A client whose blocking send was
// still pending (no worker yet, or the quick-reply window) and that retried it with
// returnImmediately got a Task that GetTask could not find.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

describe('a returnImmediately retry of a blocking send that is still pending', () => {
  it('answers with a Task that exists, and the first send then answers with that Task too', async () => {
    const echo = await p.agent('echo');
    const message = userMessage('reply'); // echo would answer "reply" with a Message
    const first = p.service.send(alice, echo, { message }); // blocking; no worker runs yet
    await new Promise((r) => setTimeout(r, 300));
    const retry = await p.service.send(alice, echo, { message, configuration: { returnImmediately: true } });
    if (!('task' in retry)) throw new Error('expected a Task');
    const seen = await p.service.getTask(alice, 'echo', retry.task.id);
    expect(seen.id).toBe(retry.task.id);
    expect(seen.status.state).toBe(TaskState.SUBMITTED);
    p.startWorker();
    const answer = await first;
    expect('task' in answer && answer.task.id).toBe(retry.task.id);
    expect((await p.service.getTask(alice, 'echo', retry.task.id)).status.state).toBe(TaskState.COMPLETED);
  });
});
