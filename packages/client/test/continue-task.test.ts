import { describe, expect, it } from 'vitest';
import { Role, TaskState, type AgentCard, type Task, type TaskStatus } from '@switchyard/protocol';
import { A2AClient, userMessage, type A2ATransport, type StreamEvent } from '../src/index.ts';

// continueTask()/run() of a follow-up message against a scripted agent that has already asked its
// next question when the non-blocking send returns, and that ends every stream after restating
// that snapshot (as Switchyard does at INPUT_REQUIRED).
const TASK_ID = '22222222-2222-4222-8222-222222222222';
const question = (messageId: string, timestamp: string): TaskStatus => ({
  state: TaskState.INPUT_REQUIRED,
  timestamp,
  message: { messageId, role: Role.AGENT, parts: [{ text: messageId }] },
});
const FIRST = question('how many travellers?', '2026-01-01T00:00:00.000Z');
const NEXT = question('which class?', '2026-01-01T00:00:01.000Z');
const task = (status: TaskStatus): Task => ({ id: TASK_ID, contextId: 'ctx', status });

const card: AgentCard = {
  name: 'scripted',
  description: 'scripted',
  version: '1',
  supportedInterfaces: [],
  capabilities: { streaming: true },
  defaultInputModes: [],
  defaultOutputModes: [],
  skills: [],
};

/** A connection limit stands in for "forever": past it the test fails instead of hanging. */
const MAX_CALLS = 20;

function askingAgent() {
  let current = task(FIRST);
  const calls = { getTask: 0, send: 0, subscribe: 0 };
  const transport = {
    binding: 'JSONRPC',
    url: 'http://scripted',
    getTask() {
      if (++calls.getTask > MAX_CALLS) throw new Error('polled forever');
      return Promise.resolve(current);
    },
    sendMessage() {
      calls.send++;
      // The agent took the answer in and asked its next question before the reply left.
      current = task(NEXT);
      return Promise.resolve({ task: current });
    },
    async *subscribeToTask(): AsyncGenerator<StreamEvent> {
      if (++calls.subscribe > MAX_CALLS) throw new Error('reconnected forever');
      yield { response: { task: current } };
    },
  } as unknown as A2ATransport;
  return { client: new A2AClient(card, transport), calls };
}

const fast = {
  reconnectBackoff: { baseDelayMs: 1, maxDelayMs: 2 },
  pollBackoff: { baseDelayMs: 1, maxDelayMs: 2 },
};

describe('a follow-up message whose answer is already there when the send returns', () => {
  // Found in review: the status the send returned was taken as the stale one, so the agent's next
  // question never counted as settled and continueTask() reconnected forever (~7/s).
  it('continueTask() returns the next question at once', async () => {
    const { client, calls } = askingAgent();
    const result = await client.continueTask(task(FIRST), '2', fast);
    expect(result.task?.status).toEqual(NEXT);
    expect(calls).toMatchObject({ send: 1, subscribe: 0 });
  });

  it('run() of a follow-up message reads the status before the send, once per message object', async () => {
    const { client, calls } = askingAgent();
    const message = userMessage('2', { taskId: TASK_ID, contextId: 'ctx' });
    expect((await client.run(message, fast)).task?.status).toEqual(NEXT);
    // Running the same message again (its first reply lost, say) compares with the status before
    // the first send: the server answers the repeat with the task as it now is.
    expect((await client.run(message, fast)).task?.status).toEqual(NEXT);
    expect(calls).toMatchObject({ getTask: 1, send: 2, subscribe: 0 });
  });
});
