import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import {
  card,
  json,
  rpcResult,
  startRawUpstream,
  upstreamHarness,
  type RawHandler,
  type RawUpstream,
} from './support/raw-upstream.ts';

// Found in review: a follow-up turn canceled while the worker was still reading the upstream's
// card (a cache miss, up to the request timeout) left the upstream task waiting for input: the
// run had not started, so it knew no upstream task id, and the task service does not call
// onCanceled for a run that heard the cancel. The id is in the saved link.

let up: RawUpstream;
beforeAll(async () => {
  up = await startRawUpstream();
});
afterAll(() => up?.stop());

/** An upstream whose task asks a question, and that records the CancelTask calls it gets. */
const askingRpc =
  (canceled: string[]): RawHandler =>
  (_req, res, body) => {
    const request = JSON.parse(body) as { id: unknown; method: string; params: { id?: string } };
    const state = request.method === 'CancelTask' ? 'TASK_STATE_CANCELED' : 'TASK_STATE_INPUT_REQUIRED';
    if (request.method === 'CancelTask') canceled.push(request.params.id ?? '');
    const task = {
      id: 'up-asking-1',
      contextId: 'up-ctx-1',
      status: {
        state,
        timestamp: new Date().toISOString(),
        message: { messageId: 'q1', role: 'ROLE_AGENT', parts: [{ text: 'Which ledger?' }] },
      },
    };
    const result = request.method === 'SendMessage' ? { task } : task;
    rpcResult(res, request.id, result);
  };

describe('a follow-up turn canceled before its run started', () => {
  it('still cancels the upstream task that waits for the answer', async () => {
    const canceled: string[] = [];
    // Every run reads the card again, so the follow-up's read can be held.
    const harness = upstreamHarness(up, askingRpc(canceled), { cardTtlMs: 0 });
    const asked = await harness.send('post an entry');
    const taskId = asked.task!.id;
    expect(harness.task(taskId).state).toBe(TaskState.INPUT_REQUIRED);

    // The next card read hangs (the upstream slow to answer), then it answers again.
    let held = 0;
    up.route('/card.json', (req, res) => {
      if (held++ === 0) return void req.socket.setTimeout(0);
      json(card(up.url))(req, res, '');
    });
    const run = harness.start('general', { taskId });
    await waitFor(() => held === 1, { what: 'the follow-up to read the card' });
    run.cancel();
    await run.result;
    await waitFor(() => canceled.length === 1, { what: 'the upstream task to be canceled' });
    expect(canceled).toEqual(['up-asking-1']);
  });
});
