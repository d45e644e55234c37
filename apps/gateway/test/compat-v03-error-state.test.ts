import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { A2ATestClient } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { send } from './support/http.ts';
import { taskOf, userMessage } from './support/messages.ts';

// A 0.3 client (JSON-RPC, no A2A-Version) reads every task state in 0.3's spelling (digest
// §13.3: `completed`, `canceled`, `input-required`, …), the one in an error's metadata too:
// TaskNotCancelable names the state the task is in.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const v1 = (agent: string) =>
  new A2ATestClient('jsonrpc', `${h.url}/agents/acme/${agent}`, h.fixtures.keys.alice);

async function finishedTask(agent: string, state: TaskState): Promise<string> {
  const client = v1(agent);
  const sent = await client.call('SendMessage', {
    message: userMessage('finish me'),
    ...(state === TaskState.CANCELED ? { configuration: { returnImmediately: true } } : {}),
  });
  if (!sent.ok) throw new Error(sent.reason);
  const { id } = taskOf(sent.value);
  if (state === TaskState.CANCELED) {
    const canceled = await client.call('CancelTask', { id });
    if (!canceled.ok) throw new Error(canceled.reason);
  }
  const got = await client.call('GetTask', { id });
  expect(got.ok && got.value.status.state).toBe(state);
  return id;
}

const cancelV03 = (agent: string, id: string) =>
  send('POST', `${h.url}/agents/acme/${agent}/rpc`, {
    noVersion: true,
    key: h.fixtures.keys.alice,
    body: { jsonrpc: '2.0', id: 'c', method: 'tasks/cancel', params: { id } },
  });

describe('0.3 TaskNotCancelable', () => {
  it.each([
    ['echo', TaskState.COMPLETED, 'completed'],
    ['sleepy', TaskState.CANCELED, 'canceled'],
  ] as const)('%s: a task in %s is named %j', async (agent, state, v03State) => {
    const id = await finishedTask(agent, state);
    const reply = await cancelV03(agent, id);
    expect(reply.body).toEqual({
      jsonrpc: '2.0',
      id: 'c',
      error: {
        code: -32002,
        message: expect.any(String),
        data: { reason: 'TASK_NOT_CANCELABLE', metadata: { taskId: id, state: v03State } },
      },
    });
    // A 1.0 client of the same task reads the 1.0 name.
    const current = await v1(agent).call('CancelTask', { id });
    expect(current.ok).toBe(false);
    const details = ((current.ok ? {} : current.body) as { error?: { data?: unknown[] } }).error?.data;
    expect(details?.[0]).toMatchObject({ reason: 'TASK_NOT_CANCELABLE', metadata: { taskId: id, state } });
  });
});
