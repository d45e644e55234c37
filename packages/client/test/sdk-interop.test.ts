import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isA2AErrorOfKind, TaskState } from '@switchyard/protocol';
import {
  A2AClient,
  collectArtifacts,
  textOf,
  userMessage,
  type StreamEvent,
  type SupportedBinding,
} from '../src/index.ts';
import { startSdkServer, type SdkServer } from './support/sdk-server.ts';

// Interop: the client against the official A2A JS SDK's server (@a2a-js/sdk), so it is not tuned
// to Switchyard alone. README.md lists what differs (no SSE ids, so no Last-Event-ID resume).
let server: SdkServer;
beforeAll(async () => {
  server = await startSdkServer();
});
afterAll(async () => {
  await server?.stop();
});

const connect = (transport?: SupportedBinding) =>
  A2AClient.fromCardUrl(`${server.url}/.well-known/agent-card.json`, transport ? { transport } : {});

describe('card', () => {
  it("fetches the SDK server's card and prefers its first interface (JSONRPC)", async () => {
    const client = await connect();
    expect(client.card.name).toBe('SDK agent');
    expect(client.transport.binding).toBe('JSONRPC');
    expect(client.transport.url).toBe(`${server.url}/a2a/jsonrpc`);
  });
});

describe.each<SupportedBinding>(['JSONRPC', 'HTTP+JSON'])('against @a2a-js/sdk over %s', (binding) => {
  it('SendMessage (blocking) returns the completed task; GetTask reads it back', async () => {
    const client = await connect(binding);
    const message = userMessage('hello');
    const sent = await client.sendMessage({ message });
    expect(sent.task?.status.state).toBe(TaskState.COMPLETED);
    const task = await client.getTask(sent.task?.id ?? '');
    expect(task.id).toBe(sent.task?.id);
    expect(task.status.state).toBe(TaskState.COMPLETED);
    expect(collectArtifacts([{ task }])[0]?.parts.map((p) => p.text)).toEqual(['echo: hello', ' (done)']);
    expect(task.history?.some((m) => m.messageId === message.messageId)).toBe(true);
  });

  it('SendMessage answers "reply" with a Message', async () => {
    const reply = await (await connect(binding)).sendMessage({ message: userMessage('reply') });
    expect(textOf(reply.message?.parts)).toBe('pong');
  });

  it('SendStreamingMessage streams the task, status and both artifact chunks', async () => {
    const client = await connect(binding);
    const events: StreamEvent[] = [];
    for await (const event of client.sendStreamingMessage({ message: userMessage('stream') }))
      events.push(event);
    expect(events[0]?.response.task).toBeDefined();
    expect(events.at(-1)?.response.statusUpdate?.status.state).toBe(TaskState.COMPLETED);
    expect(collectArtifacts(events)).toEqual([
      expect.objectContaining({ artifactId: 'out', parts: [{ text: 'echo: stream' }, { text: ' (done)' }] }),
    ]);
  });

  it('run() (non-blocking send, subscribe, GetTask) completes', async () => {
    const client = await connect(binding);
    const events: StreamEvent[] = [];
    const result = await client.sendAndWait('run', { onEvent: (e) => events.push(e) });
    expect(result.task?.status.state).toBe(TaskState.COMPLETED);
    expect(result.task?.artifacts?.[0]?.parts).toHaveLength(2);
  });

  it('input-required: run() stops at INPUT_REQUIRED and continueTask() completes the task', async () => {
    const client = await connect(binding);
    const first = await client.sendAndWait('ask');
    expect(first.task?.status.state).toBe(TaskState.INPUT_REQUIRED);
    const second = await client.continueTask(first.task ?? { id: '', contextId: '' }, 'blue');
    expect(second.task).toMatchObject({ id: first.task?.id, status: { state: TaskState.COMPLETED } });
  });

  it('ListTasks lists the tasks', async () => {
    const client = await connect(binding);
    const sent = await client.sendMessage({ message: userMessage('listed') });
    const page = await client.listTasks({ contextId: sent.task?.contextId });
    expect(page.tasks.map((t) => t.id)).toContain(sent.task?.id);
  });

  it('errors map to A2AError: unknown task is TaskNotFound; push config ops are PushNotificationNotSupported', async () => {
    const client = await connect(binding);
    const missing = await client.getTask('no-such-task').catch((e: unknown) => e);
    expect(isA2AErrorOfKind(missing, 'TaskNotFound')).toBe(true);
    const sent = await client.sendMessage({ message: userMessage('push') });
    const push = await client.listPushConfigs(sent.task?.id ?? '').catch((e: unknown) => e);
    expect(isA2AErrorOfKind(push, 'PushNotificationNotSupported')).toBe(true);
  });
});
