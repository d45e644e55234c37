import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import {
  rpcResult,
  startRawUpstream,
  upstreamHarness,
  type RawHandler,
  type RawUpstream,
} from './support/raw-upstream.ts';

// Found in review: an upstream task in AUTH_REQUIRED may go on once credentials arrive out of
// band (the spec's flow), and finish, while our task waits for its client's next message. That
// message was then sent to the finished upstream task, refused, and retried until our task
// FAILED, its artifacts never fetched. A continuation now looks first: an upstream task no longer
// waiting is followed, not sent to.

let up: RawUpstream;
beforeAll(async () => {
  up = await startRawUpstream();
});
afterAll(() => up?.stop());

/** Asks for authorization; from then on its task has completed (authorized out of band). */
function authorizedElsewhere(): { handler: RawHandler; sends: () => number } {
  let sends = 0;
  const handler: RawHandler = (_req, res, body) => {
    const request = JSON.parse(body) as { id: unknown; method: string };
    const task = (status: Record<string, unknown>, artifacts?: unknown[]) => ({
      id: 'up-1',
      contextId: 'up-ctx',
      status: { timestamp: new Date().toISOString(), ...status },
      ...(artifacts ? { artifacts } : {}),
    });
    let result: unknown;
    if (request.method === 'SendMessage' && sends++ === 0)
      result = {
        task: task({
          state: 'TASK_STATE_AUTH_REQUIRED',
          message: { messageId: 'a1', role: 'ROLE_AGENT', parts: [{ text: 'Sign in at the bank' }] },
        }),
      };
    else {
      const done = task({ state: 'TASK_STATE_COMPLETED' }, [
        { artifactId: 'statement', parts: [{ text: 'balance: 42' }] },
      ]);
      result = request.method === 'SendMessage' ? { task: done } : done;
    }
    rpcResult(res, request.id, result);
  };
  return { handler, sends: () => sends };
}

describe('an upstream task that went on without our message', () => {
  it('is followed to its end, and the message is not sent to it', async () => {
    const upstream = authorizedElsewhere();
    const harness = upstreamHarness(up, upstream.handler);
    const asked = await harness.send('fetch my statement');
    const taskId = asked.task!.id;
    expect(harness.task(taskId).state).toBe(TaskState.AUTH_REQUIRED);

    await harness.continueTask(taskId, 'done, I signed in');
    const done = harness.task(taskId);
    expect(done.state).toBe(TaskState.COMPLETED);
    expect(done.artifacts.map((a) => a.parts)).toEqual([[{ text: 'balance: 42' }]]);
    expect(upstream.sends()).toBe(1);
  });
});
