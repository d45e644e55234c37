import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import {
  A2AClient,
  userMessage,
  type RunNotice,
  type StreamEvent,
  type SupportedBinding,
} from '../src/index.ts';
import { startPlatform, type Platform } from './support/platform.ts';
import {
  cutAfterEvents,
  isCancel,
  isSend,
  isSubscribe,
  recordingFetch,
  type FaultHook,
} from './support/recording-fetch.ts';

// What the safe pattern is for: disconnects resume with Last-Event-ID without duplicates, failing
// streams fall back to polling, a lost reply is retried with the same messageId, and a gateway
// restart in the middle of a task is survived.
let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

/** Quick retries so fault tests do not wait on production backoffs. */
const FAST = { retry: { baseDelayMs: 20, maxDelayMs: 200 } };

function connect(agent: string, transport: SupportedBinding, hook?: FaultHook) {
  const fetch = recordingFetch(hook);
  const client = A2AClient.fromCardUrl(platform.cardUrl(agent), {
    apiKey: platform.apiKey,
    transport,
    fetch,
    ...FAST,
  });
  return { fetch, client };
}

function messageIdOf(body: string | undefined): string | undefined {
  const parsed = JSON.parse(body ?? '{}') as {
    params?: { message?: { messageId?: string } };
    message?: { messageId?: string };
  };
  return (parsed.params?.message ?? parsed.message)?.messageId;
}

function expectNoDuplicates(events: StreamEvent[]): void {
  const ids = events.flatMap((e) => (e.id === undefined ? [] : [Number(e.id)]));
  expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
}

describe.each<SupportedBinding>(['JSONRPC', 'HTTP+JSON'])('over %s', (binding) => {
  it('a stream cut mid-task resumes with Last-Event-ID: no event is repeated or lost', async () => {
    let cut = false;
    const { fetch, client } = connect('slow', binding, async (request, forward) => {
      const response = await forward();
      if (!isSubscribe(request) || cut) return response;
      cut = true;
      return cutAfterEvents(response, 2);
    });
    const events: StreamEvent[] = [];
    const notices: RunNotice[] = [];
    const result = await (
      await client
    ).sendAndWait('resume me', { onEvent: (e) => events.push(e), onNotice: (n) => notices.push(n) });
    expect(result.task?.status.state).toBe(TaskState.COMPLETED);
    const subscribes = fetch.requests.filter(isSubscribe);
    expect(subscribes).toHaveLength(2);
    const streamed = events.filter((e) => e.id !== undefined);
    expect(subscribes[1]?.headers.get('last-event-id')).toBe(streamed[1]?.id);
    expect(notices[0]).toMatchObject({ type: 'reconnecting', lastEventId: streamed[1]?.id });
    expectNoDuplicates(events);
    // One snapshot from the first connection; the resume brought only later events.
    expect(streamed.filter((e) => e.response.task)).toHaveLength(1);
    expect(events.filter((e) => e.response.artifactUpdate)).toHaveLength(3);
    expect(result.task?.artifacts?.find((a) => a.artifactId === 'progress')?.parts).toHaveLength(3);
  });

  it.each([
    ['503 Service Unavailable', () => Promise.resolve(new Response('down for maintenance', { status: 503 }))],
    [
      'a network error',
      () => Promise.reject(new TypeError('fetch failed', { cause: new Error('ECONNRESET') })),
    ],
  ])('falls back to GetTask polling when every subscribe fails with %s', async (_name, fail) => {
    const { fetch, client } = connect('slow', binding, (request, forward) =>
      isSubscribe(request) ? fail() : forward(),
    );
    const notices: RunNotice[] = [];
    const events: StreamEvent[] = [];
    const result = await (
      await client
    ).sendAndWait('poll me', { onNotice: (n) => notices.push(n), onEvent: (e) => events.push(e) });
    expect(result.task?.status.state).toBe(TaskState.COMPLETED);
    expect(notices.map((n) => n.type)).toEqual(['reconnecting', 'reconnecting', 'polling']);
    expect(fetch.requests.filter(isSubscribe).length).toBeGreaterThanOrEqual(3);
    // Polled snapshots are reported as task events without SSE ids.
    expect(events.at(-1)?.response.task?.status.state).toBe(TaskState.COMPLETED);
  });

  it('a lost SendMessage reply is retried with the same messageId and yields one task', async () => {
    let dropped = false;
    const { fetch, client } = connect('echo', binding, async (request, forward) => {
      const response = await forward();
      if (isSend(request) && !dropped) {
        dropped = true;
        await response.text();
        throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
      }
      return response;
    });
    const echo = await client;
    const contextId = randomUUID();
    const result = await echo.run(userMessage('once', { contextId }));
    const sends = fetch.requests.filter(isSend);
    expect(sends).toHaveLength(2);
    expect(messageIdOf(sends[0]?.body)).toBe(messageIdOf(sends[1]?.body));
    const listed = await echo.listTasks({ contextId });
    expect(listed.totalSize).toBe(1);
    expect(listed.tasks[0]?.id).toBe(result.task?.id);
    expect(result.task?.status.state).toBe(TaskState.COMPLETED);
  });

  it('a lost CancelTask reply is retried: the retry answers with the CANCELED task, not TaskNotCancelable', async () => {
    let dropped = false;
    const { fetch, client } = connect('slow', binding, async (request, forward) => {
      const response = await forward();
      if (isCancel(request) && !dropped) {
        dropped = true;
        await response.text();
        throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
      }
      return response;
    });
    const slow = await client;
    const sent = await slow.sendMessage({
      message: userMessage('cancel me'),
      configuration: { returnImmediately: true },
    });
    const taskId = sent.task?.id ?? '';
    const canceled = await slow.cancelTask(taskId);
    expect(fetch.requests.filter(isCancel)).toHaveLength(2);
    expect(canceled).toMatchObject({ id: taskId, status: { state: TaskState.CANCELED } });
  });

  it('a retried cancel of a task that finished otherwise keeps the TaskNotCancelable refusal', async () => {
    const { fetch, client } = connect('echo', binding, async (request, forward) =>
      isCancel(request) && fetch.requests.filter(isCancel).length === 1
        ? Promise.resolve(new Response('', { status: 503, headers: { 'Retry-After': '0' } }))
        : forward(),
    );
    const echo = await client;
    const done = await echo.sendMessage({ message: userMessage('finish first') });
    expect(done.task?.status.state).toBe(TaskState.COMPLETED);
    const error = await echo.cancelTask(done.task?.id ?? '').catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'TaskNotCancelable' });
    expect(fetch.requests.filter(isCancel)).toHaveLength(2);
  });

  it('503 and 429 with Retry-After are retried; 429 without it is not', async () => {
    const replies = [
      new Response('', { status: 503, headers: { 'Retry-After': '0' } }),
      new Response(
        JSON.stringify({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'slow down' } }),
        {
          status: 429,
          headers: { 'Retry-After': '0', 'Content-Type': 'application/json' },
        },
      ),
    ];
    const { fetch, client } = connect('echo', binding, (request, forward) =>
      isSend(request) && replies.length > 0 ? Promise.resolve(replies.shift() as Response) : forward(),
    );
    const echo = await client;
    const result = await echo.sendMessage({ message: userMessage('after a while') });
    expect(result.task?.status.state).toBe(TaskState.COMPLETED);
    expect(fetch.requests.filter(isSend)).toHaveLength(3);

    const { fetch: fetch2, client: client2 } = connect('echo', binding, (request, forward) =>
      isSend(request)
        ? Promise.resolve(new Response('{"error":{"code":429,"message":"no"}}', { status: 429 }))
        : forward(),
    );
    const error = await (await client2).sendMessage({ message: userMessage('x') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'ResourceExhausted', httpStatus: 429 });
    expect(fetch2.requests.filter(isSend)).toHaveLength(1);
  });

  it('a gateway restart in the middle of a task: run() resumes on the new gateway and returns the finished task', async () => {
    const { fetch, client } = connect('slow', binding);
    const events: StreamEvent[] = [];
    const notices: RunNotice[] = [];
    const running = (await client).sendAndWait('survive a restart', {
      onEvent: (e) => events.push(e),
      onNotice: (n) => notices.push(n),
    });
    await waitFor(() => events.some((e) => e.response.artifactUpdate), { what: 'the first progress chunk' });
    const before = fetch.requests.filter(isSubscribe).length;
    // Restart only once the client has tried to reconnect to the stopped gateway.
    await platform.restartGateway(() =>
      waitFor(() => fetch.requests.filter(isSubscribe).length > before, {
        what: 'a reconnect attempt while the gateway is down',
      }).then(() => undefined),
    );
    const result = await running;
    expect(result.task?.status.state).toBe(TaskState.COMPLETED);
    expect(result.task?.artifacts?.find((a) => a.artifactId === 'progress')?.parts).toHaveLength(3);
    expect(notices.some((n) => n.type === 'reconnecting')).toBe(true);
    expectNoDuplicates(events);
    const resumed = fetch.requests.filter(isSubscribe).slice(1);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.every((r) => r.headers.get('last-event-id') !== null)).toBe(true);
  });
});
