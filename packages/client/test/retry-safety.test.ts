import { describe, expect, it } from 'vitest';
import { TaskState, type SendMessageRequest } from '@switchyard/protocol';
import { A2AClient, NetworkError, userMessage, type SupportedBinding } from '../src/index.ts';
import { isSend, type FaultHook, type RecordedRequest } from './support/recording-fetch.ts';
import { scriptedAgentFetch, scriptedCard } from './support/scripted-agent.ts';

// Which failed requests are sent again: a retry must not do a second time what the first attempt
// may have done already.
const FAST = { retry: { baseDelayMs: 1, maxDelayMs: 2 } };
const TASK = { id: 't1', contextId: 'c1', status: { state: TaskState.COMPLETED } };

function connect(binding: SupportedBinding, answer: FaultHook) {
  const fetch = scriptedAgentFetch(answer, scriptedCard(binding));
  return { fetch, client: A2AClient.fromCard(scriptedCard(binding), { fetch, ...FAST }) };
}

/** The operation's result as the binding wraps it. */
function reply(binding: SupportedBinding, request: RecordedRequest, result: unknown): Response {
  if (binding === 'HTTP+JSON') return Response.json(result);
  const { id } = JSON.parse(request.body ?? '{}') as { id?: string };
  return Response.json({ jsonrpc: '2.0', id, result });
}

/** The body's operation parameters, whatever the binding. */
function paramsOf(request: RecordedRequest | undefined): Record<string, unknown> {
  const body = JSON.parse(request?.body ?? '{}') as { params?: Record<string, unknown> };
  return body.params ?? body;
}

const lostReply = () => Promise.reject(new TypeError('fetch failed', { cause: new Error('socket hang up') }));
const headersTimeout = () => {
  const cause = Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
  return Promise.reject(new TypeError('fetch failed', { cause }));
};

describe.each<SupportedBinding>(['JSONRPC', 'HTTP+JSON'])('over %s', (binding) => {
  // Found in review: createPushConfig without an id was retried after a lost reply with no id
  // either, so a server that does not de-duplicate by URL registered the webhook up to 5 times.
  // (Minting an id instead made a second config at every registration of the same URL.)
  it('a push config with an id is retried with it; one without is sent once, as it is', async () => {
    const { fetch, client } = connect(binding, (request, _forward, index) =>
      index === 0
        ? lostReply()
        : Promise.resolve(reply(binding, request, { ...paramsOf(request), taskId: 't1' })),
    );
    const created = await client.createPushConfig({
      taskId: 't1',
      id: 'hook-1',
      url: 'https://hooks.example/a2a',
    });
    expect(fetch.requests.map((r) => paramsOf(r)['id'])).toEqual(['hook-1', 'hook-1']);
    expect(created.id).toBe('hook-1');
    const once = connect(binding, () => lostReply());
    await expect(
      once.client.createPushConfig({ taskId: 't1', url: 'https://hooks.example/a2a' }),
    ).rejects.toBeInstanceOf(NetworkError);
    expect(once.fetch.requests.map((r) => paramsOf(r)['id'])).toEqual([undefined]);
  });

  it('a transport used directly does not retry a create without an id', async () => {
    const { fetch, client } = connect(binding, () => lostReply());
    await expect(
      client.transport.createPushConfig({ taskId: 't1', url: 'https://hooks.example/a2a' }),
    ).rejects.toBeInstanceOf(NetworkError);
    expect(fetch.requests).toHaveLength(1);
  });

  // Found in review: a blocking send that failed because undici's headers timeout (300 s) fired
  // was sent again up to 4 times, each waiting as long, although the server was still running it.
  it.each([
    ["undici's headers timeout", headersTimeout],
    ["a gateway's 504", () => Promise.resolve(new Response('<html>gateway timeout</html>', { status: 504 }))],
  ])('a blocking send is not sent again after %s', async (_name, timeout) => {
    const { fetch, client } = connect(binding, () => timeout());
    const error = await client.sendMessage({ message: userMessage('long job') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ message: expect.stringMatching(/Headers Timeout|504/) });
    expect(fetch.requests.filter(isSend)).toHaveLength(1);
  });

  it('a non-blocking send after a timeout, and any send after a lost connection, is sent again', async () => {
    const send = (request: SendMessageRequest, fail: () => Promise<Response>) => {
      const { fetch, client } = connect(binding, (r, _forward, index) =>
        index === 0 ? fail() : Promise.resolve(reply(binding, r, { task: TASK })),
      );
      return { fetch, sent: client.sendMessage(request) };
    };
    const nonBlocking = send(
      { message: userMessage('quick'), configuration: { returnImmediately: true } },
      headersTimeout,
    );
    expect((await nonBlocking.sent).task).toEqual(TASK);
    expect(nonBlocking.fetch.requests.filter(isSend)).toHaveLength(2);
    const blocking = send({ message: userMessage('long job') }, lostReply);
    expect((await blocking.sent).task).toEqual(TASK);
    const [first, second] = blocking.fetch.requests.filter(isSend).map((r) => paramsOf(r)['message']);
    expect(second).toEqual(first);
  });
});
