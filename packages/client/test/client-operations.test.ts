import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAVELLERS_QUESTION } from '@switchyard/agents';
import { isA2AErrorOfKind, Role, TaskState } from '@switchyard/protocol';
import {
  A2AClient,
  A2AResponseError,
  agentCardUrl,
  selectInterface,
  textOf,
  userMessage,
  type StreamEvent,
  type SupportedBinding,
} from '../src/index.ts';
import { startPlatform, type Platform } from './support/platform.ts';
import { recordingFetch } from './support/recording-fetch.ts';

// Card discovery, transport choice and every A2A operation on both bindings against the real
// gateway and worker (digest §4.1, §4.2, §7.9 rule 35).
let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

const connect = (agent: string, transport?: SupportedBinding, fetch?: ReturnType<typeof recordingFetch>) =>
  A2AClient.fromCardUrl(platform.cardUrl(agent), {
    apiKey: platform.apiKey,
    ...(transport ? { transport } : {}),
    ...(fetch ? { fetch } : {}),
  });

async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('card discovery and transport choice (digest §2.5, §4.4)', () => {
  it('fetches the card and picks the first supported interface in card order (JSONRPC on Switchyard)', async () => {
    const client = await connect('echo');
    expect(client.card.name).toBe('Echo');
    expect(client.transport.binding).toBe('JSONRPC');
    expect(client.transport.url).toBe(`${platform.agentUrl('echo')}/rpc`);
  });

  it('can be forced to HTTP+JSON', async () => {
    const client = await connect('echo', 'HTTP+JSON');
    expect(client.transport.binding).toBe('HTTP+JSON');
    expect(client.transport.url).toBe(`${platform.agentUrl('echo')}/rest`);
  });

  it('agentCardUrl turns an agent base URL into its well-known card URL and keeps a card URL', () => {
    expect(agentCardUrl(platform.agentUrl('echo'))).toBe(platform.cardUrl('echo'));
    expect(agentCardUrl(`${platform.agentUrl('echo')}/`)).toBe(platform.cardUrl('echo'));
    expect(agentCardUrl(platform.cardUrl('echo'))).toBe(platform.cardUrl('echo'));
  });

  it('§6: every request carries A2A-Version: 1.0 and the API key in the header the card names', async () => {
    const fetch = recordingFetch();
    const client = await connect('echo', undefined, fetch);
    await client.listTasks();
    expect(fetch.requests.map((r) => r.headers.get('a2a-version'))).toEqual(['1.0', '1.0']);
    // The card request carries no credentials; the A2A call does.
    expect(fetch.requests[0]?.headers.get('x-api-key')).toBeNull();
    expect(fetch.requests[1]?.headers.get('x-api-key')).toBe(platform.apiKey);
  });

  it('selectInterface skips bindings and versions it cannot speak and copies the tenant (§2.6)', () => {
    const card = {
      name: 'x',
      description: 'x',
      version: '1',
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
      supportedInterfaces: [
        { url: 'grpc.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url: 'https://x.example/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        {
          url: 'https://x.example/rest',
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '1.0.1',
          tenant: 't1',
        },
        { url: 'https://x.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
    };
    expect(selectInterface(card)).toEqual({
      binding: 'HTTP+JSON',
      url: 'https://x.example/rest',
      tenant: 't1',
    });
    expect(selectInterface(card, { prefer: 'JSONRPC' })).toEqual({
      binding: 'JSONRPC',
      url: 'https://x.example/rpc',
    });
    expect(() =>
      selectInterface({ ...card, supportedInterfaces: card.supportedInterfaces.slice(0, 2) }),
    ).toThrow(/offers no/);
  });

  it('refuses a v0.3 card with a message that says so', async () => {
    const v03 = { name: 'old', url: 'http://x', protocolVersion: '0.3.0' };
    const fetch = async () =>
      new Response(JSON.stringify(v03), { headers: { 'content-type': 'application/json' } });
    await expect(A2AClient.fromCardUrl('http://127.0.0.1:9/card.json', { fetch })).rejects.toThrow(
      /0\.3 card/,
    );
  });
});

describe.each<SupportedBinding>(['JSONRPC', 'HTTP+JSON'])('every operation over %s', (binding) => {
  const client = (agent: string) => connect(agent, binding);

  it('SendMessage (blocking) returns the COMPLETED echo task with a client-generated messageId', async () => {
    const echo = await client('echo');
    const message = userMessage('hello world');
    const reply = await echo.sendMessage({ message });
    expect(reply.task?.status.state).toBe(TaskState.COMPLETED);
    expect(textOf(reply.task?.artifacts?.[0]?.parts)).toBe('hello world');
    expect(reply.task?.history?.[0]?.messageId).toBe(message.messageId);
  });

  it('SendMessage answers "reply" with a Message', async () => {
    const reply = await (await client('echo')).sendMessage({ message: userMessage('reply') });
    expect(reply.message?.role).toBe(Role.AGENT);
    expect(reply.task).toBeUndefined();
  });

  it('SendStreamingMessage yields the task snapshot first, then updates, each with an SSE id', async () => {
    const slow = await client('slow');
    const events = await drain(slow.sendStreamingMessage({ message: userMessage('go') }));
    // The stream starts at the task's creation and replays what happened before it became
    // visible (the agent's quick-reply window), so the move to WORKING is an event of its own.
    expect(events[0]?.response.task?.status.state).toBe(TaskState.SUBMITTED);
    expect(events[1]?.response.statusUpdate?.status.state).toBe(TaskState.WORKING);
    expect(events.at(-1)?.response.statusUpdate?.status.state).toBe(TaskState.COMPLETED);
    expect(events.filter((e) => e.response.artifactUpdate)).toHaveLength(3);
    expect(events.every((e) => e.id !== undefined)).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('GetTask honours historyLength; an unknown id is TaskNotFound with its HTTP status kept', async () => {
    const echo = await client('echo');
    const sent = await echo.sendMessage({ message: userMessage('history') });
    const id = sent.task?.id ?? '';
    expect((await echo.getTask(id)).history?.length).toBeGreaterThanOrEqual(1);
    expect((await echo.getTask(id, { historyLength: 0 })).history ?? []).toHaveLength(0);
    const missing = await echo.getTask(randomUUID()).catch((e: unknown) => e);
    expect(isA2AErrorOfKind(missing, 'TaskNotFound')).toBe(true);
    expect((missing as A2AResponseError).httpStatus).toBe(binding === 'JSONRPC' ? 200 : 404);
  });

  it('ListTasks filters by context and status and pages with nextPageToken', async () => {
    const echo = await client('echo');
    const contextId = randomUUID();
    for (const text of ['one', 'two', 'three'])
      await echo.sendMessage({ message: userMessage(text, { contextId }) });
    const all = await echo.listTasks({ contextId });
    expect(all.totalSize).toBe(3);
    const page = await echo.listTasks({ contextId, pageSize: 2 });
    expect(page.tasks).toHaveLength(2);
    expect(page.nextPageToken).not.toBe('');
    const rest = await echo.listTasks({ contextId, pageSize: 2, pageToken: page.nextPageToken });
    expect(rest.tasks).toHaveLength(1);
    const everything = [];
    for await (const task of echo.listAllTasks({ contextId, pageSize: 1 })) everything.push(task.id);
    expect(new Set(everything).size).toBe(3);
    const none = await echo.listTasks({ contextId, status: TaskState.FAILED });
    expect(none.tasks).toEqual([]);
  });

  it('CancelTask cancels; a second cancel is TaskNotCancelable', async () => {
    const sleepy = await client('sleepy');
    const sent = await sleepy.sendMessage({
      message: userMessage('zzz'),
      configuration: { returnImmediately: true },
    });
    const id = sent.task?.id ?? '';
    expect((await sleepy.cancelTask(id)).status.state).toBe(TaskState.CANCELED);
    const again = await sleepy.cancelTask(id).catch((e: unknown) => e);
    expect(isA2AErrorOfKind(again, 'TaskNotCancelable')).toBe(true);
  });

  it('SubscribeToTask starts with a snapshot; with lastEventId it sends only later events', async () => {
    const slow = await client('slow');
    const sent = await slow.sendMessage({
      message: userMessage('sub'),
      configuration: { returnImmediately: true },
    });
    const id = sent.task?.id ?? '';
    const first: StreamEvent[] = [];
    for await (const event of slow.subscribeToTask(id)) {
      first.push(event);
      if (first.length === 2) break;
    }
    expect(first[0]?.response.task?.id).toBe(id);
    const resumed = await drain(slow.subscribeToTask(id, { lastEventId: first[1]?.id }));
    expect(resumed.some((e) => e.response.task)).toBe(false);
    expect(resumed.map((e) => Number(e.id))).toEqual(
      [...resumed.map((e) => Number(e.id))].sort((a, b) => a - b),
    );
    expect(Number(resumed[0]?.id)).toBe(Number(first[1]?.id) + 1);
    expect(resumed.at(-1)?.response.statusUpdate?.status.state).toBe(TaskState.COMPLETED);
  });

  it('SubscribeToTask of a terminal task is UnsupportedOperation (§7.6 rule 30)', async () => {
    const echo = await client('echo');
    const done = await echo.sendMessage({ message: userMessage('done') });
    const error = await drain(echo.subscribeToTask(done.task?.id ?? '')).catch((e: unknown) => e);
    expect(isA2AErrorOfKind(error, 'UnsupportedOperation')).toBe(true);
  });

  it('push configs: create (client id, idempotent), get, list, delete; get after delete is TaskNotFound', async () => {
    const echo = await client('echo');
    const taskId = (await echo.sendMessage({ message: userMessage('push') })).task?.id ?? '';
    const webhook = {
      url: 'http://127.0.0.1:9/hook',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 's3cr3t' },
    };
    const created = await echo.registerWebhook(taskId, webhook);
    expect(created).toMatchObject({ taskId, url: webhook.url, id: expect.any(String) });
    // Creating again with the same id replaces rather than duplicates (safe retries).
    await echo.registerWebhook(taskId, { ...webhook, id: created.id });
    expect((await echo.getPushConfig(taskId, created.id ?? '')).url).toBe(webhook.url);
    expect((await echo.listPushConfigs(taskId)).configs?.map((c) => c.id)).toEqual([created.id]);
    await echo.deletePushConfig(taskId, created.id ?? '');
    await echo.deletePushConfig(taskId, created.id ?? '');
    const gone = await echo.getPushConfig(taskId, created.id ?? '').catch((e: unknown) => e);
    expect(isA2AErrorOfKind(gone, 'TaskNotFound')).toBe(true);
  });

  it("GetExtendedAgentCard returns the card and replaces the client's copy", async () => {
    const echo = await client('echo');
    const card = await echo.getExtendedAgentCard();
    expect(card.name).toBe('Echo');
    expect(echo.card).toBe(card);
  });

  it('the input-required flow continues the same task and context', async () => {
    const booking = await client('booking');
    const first = await booking.sendMessage({ message: userMessage('book a flight to Paris') });
    const task = first.task;
    expect(task?.status.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(task?.status.message?.parts)).toBe(TRAVELLERS_QUESTION);
    const second = await booking.sendMessage({
      message: userMessage('2', { taskId: task?.id, contextId: task?.contextId }),
    });
    expect(second.task).toMatchObject({
      id: task?.id,
      contextId: task?.contextId,
      status: { state: TaskState.COMPLETED },
    });
  });

  it('a wrong API key is Unauthenticated with HTTP 401', async () => {
    const bad = await A2AClient.fromCardUrl(platform.cardUrl('echo'), {
      apiKey: 'sy_not_a_key_0000000000',
      transport: binding,
    });
    const error = await bad.listTasks().catch((e: unknown) => e);
    expect(isA2AErrorOfKind(error, 'Unauthenticated')).toBe(true);
    expect((error as A2AResponseError).httpStatus).toBe(401);
  });
});
