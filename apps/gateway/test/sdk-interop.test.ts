import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ListTasksRequest,
  SendMessageRequest,
  TaskState,
  type Message as SdkMessage,
  type StreamResponse as SdkStreamResponse,
  type Task as SdkTask,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { startHarness, type Harness } from './support/harness.ts';

// Interop with the official SDK (@a2a-js/sdk 1.x speaks protocol 1.0): discover the card, then
// drive every unary operation and a stream over each binding the card advertises.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
});
afterAll(async () => {
  await h?.stop();
});

/** Every URL the SDK fetched, to check which interface it chose. */
const fetched: string[] = [];

/** The SDK takes credentials through its fetch: add the API key to every request it makes. */
function keyedFetch(key: string): typeof fetch {
  return (input, init) => {
    fetched.push(String(input instanceof Request ? input.url : input));
    const headers = new Headers(init?.headers);
    headers.set('X-API-Key', key);
    return fetch(input, { ...init, headers });
  };
}

async function sdkClient(binding: 'JSONRPC' | 'HTTP+JSON', agent: string): Promise<Client> {
  const fetchImpl = keyedFetch(h.fixtures.keys.alice);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
    }),
  );
  // The card is public; a trailing slash keeps the agent's base path when the SDK resolves it.
  return factory.createFromUrl(`${h.url}/agents/acme/${agent}/`);
}

function sendRequest(text: string, configuration: Record<string, unknown> = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
    configuration,
  });
}

function isTask(result: SdkTask | SdkMessage): result is SdkTask {
  return 'status' in result;
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('@a2a-js/sdk over %s', (binding) => {
  it("discovers the card and picks this binding's interface", async () => {
    const client = await sdkClient(binding, 'echo');
    const card = await client.getAgentCard();
    expect(card.name).toBe('Echo');
    expect(card.skills.map((s) => s.id)).toContain('audit'); // the extended card, fetched with the key
    expect(client.protocolVersion).toBe('1.0');
    fetched.length = 0;
    await client.listTasks(ListTasksRequest.fromJSON({}));
    const expected = `${h.url}/agents/acme/echo/${binding === 'JSONRPC' ? 'rpc' : 'rest/tasks'}`;
    expect(fetched).toEqual([expected]);
  });

  it('blocking and non-blocking SendMessage, GetTask and ListTasks', async () => {
    const client = await sdkClient(binding, 'echo');
    const blocking = await client.sendMessage(sendRequest('interop'));
    if (!isTask(blocking)) throw new Error('expected a task');
    expect(blocking.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(blocking.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'interop' });

    const reply = await client.sendMessage(sendRequest('reply'));
    expect(isTask(reply)).toBe(false);

    const sleepy = await sdkClient(binding, 'sleepy');
    const queued = await sleepy.sendMessage(sendRequest('later', { returnImmediately: true }));
    if (!isTask(queued)) throw new Error('expected a task');
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(queued.status?.state);

    const got = await client.getTask({ tenant: '', id: blocking.id, historyLength: 1 });
    expect(got.id).toBe(blocking.id);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: blocking.contextId }));
    expect(listed.tasks.map((t) => t.id)).toEqual([blocking.id]);
    expect(listed.nextPageToken).toBe('');

    const canceled = await sleepy.cancelTask({ tenant: '', id: queued.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(
      sleepy.cancelTask({ tenant: '', id: queued.id, metadata: undefined }),
    ).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(client.getTask({ tenant: '', id: randomUUID() })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('manages push notification configs', async () => {
    const client = await sdkClient(binding, 'echo');
    const task = await client.sendMessage(sendRequest('push'));
    if (!isTask(task)) throw new Error('expected a task');
    const created = await client.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: task.id,
      url: 'http://127.0.0.1:9/sdk-hook',
      token: 'sdk-token',
      authentication: undefined,
    });
    expect(created.taskId).toBe(task.id);
    expect(created.id).not.toBe('');
    const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id });
    expect(got.url).toBe('http://127.0.0.1:9/sdk-hook');
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 10,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.id)).toEqual([created.id]);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id });
    const after = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 10,
      pageToken: '',
    });
    expect(after.configs).toEqual([]);
  });

  it('streams a task from the first snapshot to COMPLETED', async () => {
    const client = await sdkClient(binding, 'slow');
    const seen: SdkStreamResponse[] = [];
    for await (const event of client.sendMessageStream(sendRequest('stream'))) seen.push(event);
    expect(seen[0]?.payload?.$case).toBe('task');
    const last = seen.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    if (last?.$case === 'statusUpdate') expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
