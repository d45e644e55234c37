import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SendMessageRequest,
  TaskState,
  type Message as SdkMessage,
  type StreamResponse as SdkStreamResponse,
  type Task as SdkTask,
} from '@a2a-js/sdk';
import { Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { TRACE_EXTENSION } from './support/fixtures.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { openSse, send } from './support/http.ts';

// Issue 9, A2A 0.3 compatibility (digest §13): the official SDK's 0.3 compatibility client talks
// 0.3 JSON-RPC to the gateway for every operation, and shares tasks with a 1.0 client.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
});
afterAll(async () => {
  await h?.stop();
});

interface Sent {
  url: string;
  version: string | null;
  method: unknown;
  params: unknown;
}

/** What the SDK put on the wire, to check it really spoke 0.3. */
const sent: Sent[] = [];

/** The SDK takes credentials through its fetch: add the API key to every request it makes. */
function keyedFetch(): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('X-API-Key', h.fixtures.keys.alice);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
    sent.push({
      url: String(input instanceof Request ? input.url : input),
      version: headers.get('a2a-version'),
      method: body['method'],
      params: body['params'],
    });
    return fetch(input, { ...init, headers });
  };
}

const rpcUrl = (agent: string) => `${h.url}/agents/acme/${agent}/rpc`;
const cardUrl = (agent: string) => `${h.url}/agents/acme/${agent}/.well-known/agent-card.json`;

/** The SDK's 0.3 transport alone: it sends no A2A-Version at all, like a 0.3 client. */
function bareV03(agent: string): LegacyJsonRpcTransport {
  return new LegacyJsonRpcTransport({ endpoint: rpcUrl(agent), fetchImpl: keyedFetch() });
}

/**
 * The SDK's client as a 0.3 client: the 0.3 card (asked for with `A2A-Version: 0.3`; a gateway with
 * CARD_VERSION_WITHOUT_HEADER=0.3 serves it without the header too), the transport chosen by the
 * compat-enabled factory, `A2A-Version: 0.3` on every call.
 */
async function v03Client(agent: string): Promise<Client> {
  const raw = (await send('GET', cardUrl(agent), { noVersion: true, headers: { 'A2A-Version': '0.3' } }))
    .body;
  const card = parseLegacyAgentCard(raw);
  const factory = new JsonRpcTransportFactory({ fetchImpl: keyedFetch(), legacyCompat: { enabled: true } });
  const transport = await factory.create(rpcUrl(agent), card);
  return new Client(transport, card);
}

/** The same SDK as a 1.0 client. */
async function v1Client(agent: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: keyedFetch() })],
    }),
  );
  return factory.createFromUrl(`${h.url}/agents/acme/${agent}/`);
}

function message(text: string, extra: Record<string, unknown> = {}) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

function sendRequest(text: string, configuration?: Record<string, unknown>, extra?: Record<string, unknown>) {
  return SendMessageRequest.fromJSON({
    message: message(text, extra),
    ...(configuration ? { configuration } : {}),
  });
}

function asTask(result: SdkTask | SdkMessage): SdkTask {
  if (!('status' in result)) throw new Error('expected a task');
  return result;
}

function textOf(task: SdkTask): unknown {
  return task.artifacts[0]?.parts[0]?.content;
}

describe('the @a2a-js/sdk 0.3 compatibility client against the gateway', () => {
  it('finds the 0.3 card, picks the 0.3 transport, gets the extended card', async () => {
    const client = await v03Client('echo');
    expect(client.protocolVersion).toBe('0.3');
    sent.length = 0;
    const card = await client.getAgentCard();
    expect(card.name).toBe('Echo');
    expect(card.skills.map((s) => s.id)).toContain('audit'); // extended: only with the key
    expect(card.supportedInterfaces[0]).toMatchObject({ url: rpcUrl('echo'), protocolBinding: 'JSONRPC' });
    expect(sent).toEqual([
      {
        url: rpcUrl('echo'),
        version: '0.3',
        method: 'agent/getAuthenticatedExtendedCard',
        params: undefined,
      },
    ]);
  });

  it('message/send: blocking, blocking left unset, non-blocking, and a Message reply', async () => {
    const client = await v03Client('echo');
    const blocking = asTask(await client.sendMessage(sendRequest('interop')));
    expect(blocking.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(blocking)).toEqual({ $case: 'text', value: 'interop' });
    expect(sent.at(-1)).toMatchObject({
      method: 'message/send',
      params: { configuration: { blocking: true } },
    });

    // No A2A-Version and no `blocking`: served blocking, as 0.3 servers did (README, protocol).
    sent.length = 0;
    const unset = asTask(await bareV03('echo').sendMessage(sendRequest('unset')));
    expect(sent[0]).toMatchObject({ version: null, method: 'message/send' });
    expect(sent[0]?.params).not.toHaveProperty('configuration');
    expect(unset.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const reply = await client.sendMessage(sendRequest('reply'));
    expect('status' in reply).toBe(false);
    expect((reply as SdkMessage).parts[0]?.content).toEqual({ $case: 'text', value: 'reply' });

    const sleepy = await v03Client('sleepy');
    const queued = asTask(await sleepy.sendMessage(sendRequest('later', { returnImmediately: true })));
    expect(sent.at(-1)).toMatchObject({ params: { configuration: { blocking: false } } });
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(queued.status?.state);
    await sleepy.cancelTask({ tenant: '', id: queued.id, metadata: undefined });
  });

  it('tasks/get and tasks/cancel, with 0.3 errors for a finished or unknown task', async () => {
    const client = await v03Client('echo');
    const done = asTask(await client.sendMessage(sendRequest('get me')));
    const got = await client.getTask({ tenant: '', id: done.id, historyLength: 1 });
    expect(got.id).toBe(done.id);
    expect(got.contextId).toBe(done.contextId);
    expect(got.history).toHaveLength(1);
    expect(sent.at(-1)).toMatchObject({ method: 'tasks/get', params: { id: done.id, historyLength: 1 } });

    const sleepy = await v03Client('sleepy');
    const queued = asTask(await sleepy.sendMessage(sendRequest('cancel me', { returnImmediately: true })));
    const canceled = await sleepy.cancelTask({ tenant: '', id: queued.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(sent.at(-1)).toMatchObject({ method: 'tasks/cancel' });
    await expect(sleepy.cancelTask({ tenant: '', id: queued.id, metadata: undefined })).rejects.toMatchObject(
      {
        name: 'TaskNotCancelableError',
      },
    );
    await expect(client.getTask({ tenant: '', id: randomUUID() })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
  });

  it('message/stream and tasks/resubscribe deliver the task from its snapshot to COMPLETED', async () => {
    const client = await v03Client('slow');
    const streamed: SdkStreamResponse[] = [];
    for await (const event of client.sendMessageStream(sendRequest('stream'))) streamed.push(event);
    expect(sent.at(-1)).toMatchObject({ method: 'message/stream' });
    expect(streamed[0]?.payload?.$case).toBe('task');
    expect(
      streamed.some((e) => e.payload?.$case === 'artifactUpdate' || e.payload?.$case === 'statusUpdate'),
    ).toBe(true);
    const last = streamed.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const started = asTask(await client.sendMessage(sendRequest('follow', { returnImmediately: true })));
    const followed: SdkStreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: started.id })) followed.push(event);
    expect(sent.at(-1)).toMatchObject({ method: 'tasks/resubscribe', params: { id: started.id } });
    expect(followed[0]?.payload?.$case).toBe('task');
    const end = followed.at(-1)?.payload;
    expect(end?.$case === 'statusUpdate' && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('tasks/pushNotificationConfig/set, get (with and without a config id), list and delete', async () => {
    const client = await v03Client('echo');
    const task = asTask(await client.sendMessage(sendRequest('push')));
    const created = await client.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: task.id,
      url: 'http://127.0.0.1:9/v03-hook',
      token: 'v03-token',
      authentication: { scheme: 'Bearer', credentials: 'hook-secret' },
    });
    expect(sent.at(-1)).toMatchObject({
      method: 'tasks/pushNotificationConfig/set',
      params: { taskId: task.id, pushNotificationConfig: { url: 'http://127.0.0.1:9/v03-hook' } },
    });
    expect(created.taskId).toBe(task.id);
    expect(created.id).not.toBe('');
    expect(created.url).toBe('http://127.0.0.1:9/v03-hook');
    // Registered by a 0.3 client: its webhook bodies will take the 0.3 shape (migration 000007).
    const stored = await h.db.pool.query<{ wire_version: string }>(
      'SELECT wire_version FROM push_configs WHERE task_id = $1 AND id = $2',
      [task.id, created.id],
    );
    expect(stored.rows).toEqual([{ wire_version: '0.3' }]);

    const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id });
    expect(got).toMatchObject({ id: created.id, url: 'http://127.0.0.1:9/v03-hook' });
    expect(sent.at(-1)?.params).toEqual({ id: task.id, pushNotificationConfigId: created.id });
    // 0.3 may leave the config id out (one config per task in 0.3).
    const only = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: '' });
    expect(sent.at(-1)?.params).toEqual({ id: task.id });
    expect(only.id).toBe(created.id);

    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.id)).toEqual([created.id]);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id });
    expect(sent.at(-1)).toMatchObject({ method: 'tasks/pushNotificationConfig/delete' });
    const after = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(after.configs).toEqual([]);
    await expect(
      client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: '' }),
    ).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});

describe('a 0.3 client and a 1.0 client on the same task', () => {
  it('0.3 starts a booking, 1.0 answers the input-required question, 0.3 reads the result', async () => {
    const old = await v03Client('booking');
    const current = await v1Client('booking');
    expect(current.protocolVersion).toBe('1.0');
    const asked = asTask(await old.sendMessage(sendRequest('book a flight to Lisbon')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const answered = asTask(
      await current.sendMessage(
        sendRequest('we are two', {}, { taskId: asked.id, contextId: asked.contextId }),
      ),
    );
    expect(sent.at(-1)).toMatchObject({ version: '1.0', method: 'SendMessage' });
    expect(answered.id).toBe(asked.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const seen = await old.getTask({ tenant: '', id: asked.id });
    expect(seen.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(seen.artifacts.length).toBeGreaterThan(0);
    expect(seen.history.length).toBeGreaterThanOrEqual(2);
  });

  it('1.0 starts, 0.3 continues over a stream, 1.0 sees the task end', async () => {
    const current = await v1Client('booking');
    const old = await v03Client('booking');
    const asked = asTask(await current.sendMessage(sendRequest('book a hotel in Oslo')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const events: SdkStreamResponse[] = [];
    for await (const event of old.sendMessageStream(
      sendRequest('we are four', undefined, { taskId: asked.id, contextId: asked.contextId }),
    ))
      events.push(event);
    // A continuation's stream starts from the task as it stands once the message is in: when the
    // agent has already finished by then, that Task (COMPLETED) is the stream's one event.
    const last = events.at(-1)?.payload;
    const endedIn =
      last?.$case === 'statusUpdate' || last?.$case === 'task' ? last.value.status?.state : undefined;
    expect(endedIn).toBe(TaskState.TASK_STATE_COMPLETED);

    const seen = await current.getTask({ tenant: '', id: asked.id });
    expect(seen.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe('0.3 on the wire', () => {
  const rpc = (body: unknown, options: { key?: string | undefined; headers?: Record<string, string> } = {}) =>
    send('POST', rpcUrl('echo'), {
      noVersion: true,
      key: 'key' in options ? options.key : h.fixtures.keys.alice,
      body,
      ...(options.headers ? { headers: options.headers } : {}),
    });

  it('stream results carry kind, and final on status updates (terminal or interrupted)', async () => {
    const reply = await openSse('POST', `${h.url}/agents/acme/slow/rpc`, {
      noVersion: true,
      key: h.fixtures.keys.alice,
      body: {
        jsonrpc: '2.0',
        id: 'r1',
        method: 'message/stream',
        params: {
          message: {
            kind: 'message',
            messageId: randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'x' }],
          },
        },
      },
    });
    const results = reply.events.map(
      (e) => (e.data as { id: string; result: Record<string, unknown> }).result,
    );
    expect(reply.events.every((e) => (e.data as { id: string }).id === 'r1')).toBe(true);
    expect(results[0]).toMatchObject({ kind: 'task', status: { state: expect.any(String) } });
    const updates = results.filter((r) => r['kind'] === 'status-update');
    expect(updates.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
    for (const update of updates.slice(0, -1)) expect(update['final']).toBe(false);
    expect(
      results.every((r) => ['task', 'status-update', 'artifact-update'].includes(String(r['kind']))),
    ).toBe(true);
  });

  it('a configuration without blocking is served blocking (the documented choice, digest §13.1)', async () => {
    const reply = await send('POST', `${h.url}/agents/acme/slow/rpc`, {
      noVersion: true,
      key: h.fixtures.keys.alice,
      body: {
        jsonrpc: '2.0',
        id: 'b',
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'x' }],
          },
          configuration: { acceptedOutputModes: ['text/plain'] },
        },
      },
    });
    expect(reply.body).toMatchObject({ id: 'b', result: { kind: 'task', status: { state: 'completed' } } });
  });

  it('errors are 0.3-shaped: same codes, data one object (not 1.0 Any[])', async () => {
    const missing = await rpc({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } });
    expect(missing.status).toBe(200);
    expect(missing.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32001,
        message: expect.any(String),
        data: expect.objectContaining({ reason: 'TASK_NOT_FOUND' }),
      },
    });

    const invalid = await rpc({
      jsonrpc: '2.0',
      id: 2,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [] } },
    });
    expect(invalid.body).toMatchObject({
      error: {
        code: -32602,
        data: {
          reason: 'INVALID_PARAMS',
          fieldViolations: [expect.objectContaining({ field: 'message.parts' })],
        },
      },
    });

    const anonymous = await rpc(
      { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'x' } },
      { key: undefined },
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({
      id: 3,
      error: { code: -32000, data: { reason: 'UNAUTHENTICATED' } },
    });

    // A stream refused before its first event is a plain 0.3 error reply, not SSE.
    const done = await rpc({
      jsonrpc: '2.0',
      id: 6,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'x' }],
        },
      },
    });
    const finished = (done.body as { result: { id: string } }).result.id;
    const refused = await rpc({
      jsonrpc: '2.0',
      id: 7,
      method: 'tasks/resubscribe',
      params: { id: finished },
    });
    expect(refused.headers.get('content-type')).toMatch(/application\/json/);
    expect(refused.body).toMatchObject({
      id: 7,
      error: { code: -32004, data: { reason: 'UNSUPPORTED_OPERATION' } },
    });

    const unknown = await rpc({ jsonrpc: '2.0', id: 4, method: 'tasks/list', params: {} });
    expect(unknown.body).toMatchObject({ id: 4, error: { code: -32601 } });
  });

  it('X-A2A-Extensions, the 0.3 extensions header, activates and is echoed', async () => {
    const reply = await rpc(
      { jsonrpc: '2.0', id: 5, method: 'tasks/get', params: { id: 'nope' } },
      { headers: { 'X-A2A-Extensions': TRACE_EXTENSION } },
    );
    expect(reply.headers.get('x-a2a-extensions')).toBe(TRACE_EXTENSION);
  });
});
