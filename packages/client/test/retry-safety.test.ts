import { describe, expect, it } from 'vitest';
import { A2AClient, NetworkError, type SupportedBinding } from '../src/index.ts';
import type { FaultHook, RecordedRequest } from './support/recording-fetch.ts';
import { scriptedAgentFetch, scriptedCard } from './support/scripted-agent.ts';

// Which failed requests are sent again: a retry must not do a second time what the first attempt
// may have done already.
const FAST = { retry: { baseDelayMs: 1, maxDelayMs: 2 } };

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

describe.each<SupportedBinding>(['JSONRPC', 'HTTP+JSON'])('over %s', (binding) => {
  // Found in review: createPushConfig without an id was retried after a lost reply with no id
  // either, so a server that does not de-duplicate by URL registered the webhook up to 5 times.
  it('a push config created without an id gets one, and its retry carries the same id', async () => {
    const { fetch, client } = connect(binding, (request, _forward, index) =>
      index === 0
        ? lostReply()
        : Promise.resolve(reply(binding, request, { ...paramsOf(request), taskId: 't1' })),
    );
    const created = await client.createPushConfig({ taskId: 't1', url: 'https://hooks.example/a2a' });
    const ids = fetch.requests.map((r) => paramsOf(r)['id']);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toEqual(expect.any(String));
    expect(ids[1]).toBe(ids[0]);
    expect(created.id).toBe(ids[0]);
  });

  it('a transport used directly does not retry a create without an id', async () => {
    const { fetch, client } = connect(binding, () => lostReply());
    await expect(
      client.transport.createPushConfig({ taskId: 't1', url: 'https://hooks.example/a2a' }),
    ).rejects.toBeInstanceOf(NetworkError);
    expect(fetch.requests).toHaveLength(1);
  });
});
