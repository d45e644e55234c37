import { afterAll, beforeAll, expect, it } from 'vitest';
import { Task } from '@a2a-js/sdk';
import { AgentHarness, type RecordedCall } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { createSecretBox } from '@switchyard/store';
import { waitFor } from '@switchyard/testing';
import { createUpstreamAgent } from '@switchyard/upstream';
import { startUpstreamServer, type UpstreamServer } from './support/upstream-server.ts';

// A replacement run picks the upstream task up with a snapshot, then SubscribeToTask. If the
// upstream task ends in between, the spec's answer to the subscribe is UnsupportedOperation (a
// terminal task cannot be subscribed to). That is a stream that ended, not a failure: the run
// must read the ending and finish, not spend an attempt (CI once saw a third attempt this way).
const CHUNKS = 6;
let upstream: UpstreamServer;
let refusedSubscribes = 0;

beforeAll(async () => {
  upstream = await startUpstreamServer({
    chunkDelayMs: 100,
    // Every subscribe waits until the upstream task has ended, so it is refused.
    beforeResubscribe: async (_taskId, readTask) => {
      const state = async () =>
        (Task.toJSON(await readTask()) as { status?: { state?: string } }).status?.state;
      await waitFor(async () => (await state()) === 'TASK_STATE_COMPLETED');
      refusedSubscribes++;
    },
  });
});
afterAll(() => upstream?.stop());

it('a resumed run whose upstream task ends before its subscribe reads the ending instead of failing', async () => {
  const agent = createUpstreamAgent({
    secrets: createSecretBox('test-secret-key-0123456789'),
    policy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
  });
  const harness = new AgentHarness(agent, { settings: { cardUrl: upstream.cardUrl } });
  const isChunk = (call: RecordedCall) => call.kind === 'emitArtifact' && call.status === 'applied';
  let chunks = 0;
  // The first run dies (its lease lapses) after two chunks, while the upstream task goes on.
  const first = harness.start(`chunks ${CHUNKS}`, {
    onCall: (call, run) => (isChunk(call) && ++chunks === 2 ? run.loseLease() : undefined),
  });
  await first.result;
  const taskId = first.taskId;
  expect(harness.task(taskId).state).toBe(TaskState.WORKING);

  const second = await harness.rerun(taskId);
  expect(second.error).toBeUndefined();
  expect(refusedSubscribes).toBe(1);
  const task = harness.task(taskId);
  expect(task.state).toBe(TaskState.COMPLETED);
  // Every entry once: the first run's two chunks, then what the ending's snapshot adds to them.
  expect(task.artifacts?.find((a) => a.artifactId === 'entries')?.parts).toEqual(
    Array.from({ length: CHUNKS }, (_, i) => ({ text: `entry ${i + 1};` })),
  );
  expect(upstream.tasksCreated).toHaveLength(1);
});
