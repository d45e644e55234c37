import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import {
  rpcResult,
  startRawUpstream,
  upstreamHarness,
  type RawHandler,
  type RawUpstream,
} from './support/raw-upstream.ts';

// Found in review: a non-streaming upstream is sent the client's answer with returnImmediately,
// and may answer with its task as it stood, still asking the question (the answer not taken up
// yet). That was taken for a new question: our task asked the client again and stopped polling
// while the upstream went on with the answer. The interrupt relayed is now remembered, and seen
// again it only means "not yet".

let up: RawUpstream;
beforeAll(async () => {
  up = await startRawUpstream();
});
afterAll(() => up?.stop());

const askedAt = '2026-12-03T10:00:00.000Z';
const question = { messageId: 'q1', role: 'ROLE_AGENT', parts: [{ text: 'Which ledger?' }] };

/**
 * Asks once. Answered (a second SendMessage), it still shows the question to that send and to
 * the first poll after it, then works, then completes. Before the answer, every GetTask shows the
 * question too (the continuation's look before it sends).
 */
function slowToTakeTheAnswer(): { handler: RawHandler; sends: () => number; polls: () => number } {
  let sends = 0;
  let polls = 0;
  const handler: RawHandler = (_req, res, body) => {
    const request = JSON.parse(body) as { id: unknown; method: string };
    const task = (status: Record<string, unknown>, artifacts?: unknown[]) => ({
      id: 'up-1',
      contextId: 'up-ctx',
      status,
      ...(artifacts ? { artifacts } : {}),
    });
    const asking = task({ state: 'TASK_STATE_INPUT_REQUIRED', timestamp: askedAt, message: question });
    let result: unknown;
    if (request.method === 'SendMessage') {
      sends++;
      result = { task: asking };
    } else if (sends < 2) result = asking;
    else if (++polls <= 1) result = asking;
    else if (polls === 2) result = task({ state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() });
    else
      result = task({ state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() }, [
        { artifactId: 'entry', parts: [{ text: 'posted to general' }] },
      ]);
    rpcResult(res, request.id, result);
  };
  return { handler, sends: () => sends, polls: () => polls };
}

describe('a non-streaming upstream still showing the question it was just answered', () => {
  it('is polled until it ends; the client is not asked again', async () => {
    const upstream = slowToTakeTheAnswer();
    const harness = upstreamHarness(up, upstream.handler);
    const asked = await harness.send('post an entry');
    const taskId = asked.task!.id;
    expect(harness.task(taskId).state).toBe(TaskState.INPUT_REQUIRED);

    await harness.continueTask(taskId, 'general');
    const done = harness.task(taskId);
    expect(done.state).toBe(TaskState.COMPLETED);
    expect(done.artifacts.map((a) => a.parts)).toEqual([[{ text: 'posted to general' }]]);
    expect(upstream.sends()).toBe(2);
    expect(upstream.polls()).toBe(3);
  });

  it('a retry of the turn that was relaying the question relays it again', async () => {
    // The first run records the question it is about to relay, then dies before the relay lands.
    const harness = upstreamHarness(up, slowToTakeTheAnswer().handler);
    const first = harness.start('post an entry', {
      onCall: (call, run) => {
        const value = call.kind === 'memory.set' ? (call.value as { answering?: string }) : undefined;
        if (value?.answering) run.loseLease();
      },
    });
    await first.result;
    const taskId = first.taskId;
    expect(harness.task(taskId).state).toBe(TaskState.WORKING);
    // The same turn again, as after a lapsed lease: the upstream still asks, and so do we.
    await harness.rerun(taskId);
    expect(harness.task(taskId).state).toBe(TaskState.INPUT_REQUIRED);
  });
});
