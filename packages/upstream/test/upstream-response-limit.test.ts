import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentFailure, AgentHarness } from '@switchyard/agents';
import { createGuardedAgent, UrlRefusedError } from '@switchyard/engine';
import { createSecretBox } from '@switchyard/store';
import { createUpstreamAgent } from '../src/upstream-agent.ts';
import { CardProblem } from '../src/upstream-card-check.ts';
import { readUpstreamCard } from '../src/upstream-card.ts';
import { UpstreamCardCache } from '../src/upstream-client.ts';
import { createUpstreamFetch, ResponseTooLargeError } from '../src/upstream-fetch.ts';
import { card, json, startRawUpstream, streamed, type RawUpstream } from './support/raw-upstream.ts';

// Found in audit: reading an upstream card had no size limit. A card URL streaming 150 MB took the
// gateway from 144 MB to 786 MB RSS, and the worker reads cards (and every unary answer) the same
// way. Cards stop at 1 MiB, error bodies at 64 KiB, other answers at maxReplyBytes.

const policy = { allowCidrs: ['127.0.0.0/8'], allowHttp: true };
const MiB = 1024 * 1024;
let up: RawUpstream;
beforeAll(async () => {
  up = await startRawUpstream();
});
afterAll(() => up?.stop());

/** A card whose JSON goes on for `mb` MiB in an unknown field: valid, if it were read whole. */
function hugeCard(mb: number) {
  const whole = JSON.stringify(card(up.url, { pad: '' }));
  const [prefix, suffix] = whole.split('"pad":""');
  return streamed(`${prefix}"pad":"`, mb, `"${suffix}`);
}

const guardedFetch = (maxReplyBytes?: number, allowHttp = true) =>
  createUpstreamFetch({
    dispatcher: createGuardedAgent({ policy, connectTimeoutMs: 5_000 }),
    headers: {},
    allowHttp,
    requestTimeoutMs: 20_000,
    log: { lastStatus: undefined, redirected: false },
    ...(maxReplyBytes ? { maxReplyBytes } : {}),
  });

describe('an upstream card larger than 1 MiB', () => {
  it('is refused at registration, and the read stops at the limit', async () => {
    const big = hugeCard(150);
    up.route('/big.json', big.handler);
    const started = Date.now();
    const err = await readUpstreamCard({ cardUrl: `${up.url}/big.json` }, policy).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CardProblem);
    expect((err as Error).message).toBe('the card is larger than the limit of 1 MiB (1048576 bytes)');
    expect(Date.now() - started).toBeLessThan(5_000);
    // What the server managed to send before we hung up: socket buffers, not 150 MiB.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(big.sent()).toBeLessThan(24 * MiB);
  });

  it('is refused by the worker too (the card cache reads through the same limit)', async () => {
    const big = hugeCard(40);
    up.route('/big-worker.json', big.handler);
    await expect(
      new UpstreamCardCache(60_000).get(`${up.url}/big-worker.json`, guardedFetch()),
    ).rejects.toThrow('the card is larger than the limit of 1 MiB');
    // A card just under the limit is read.
    up.route('/fits.json', hugeCard(0).handler);
    await expect(
      new UpstreamCardCache(60_000).get(`${up.url}/fits.json`, guardedFetch()),
    ).resolves.toMatchObject({
      name: 'Ledger',
    });
  });
});

describe('other upstream answers', () => {
  it('an http:// URL is refused before anything is sent where plain http is off (WEBHOOK_ALLOW_HTTP=false)', async () => {
    let asked = 0;
    up.route('/plain', (_req, res) => (asked++, res.end('{}')));
    const err = await guardedFetch(undefined, false)(`${up.url}/plain`, { method: 'POST', body: '{}' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UrlRefusedError);
    expect(asked).toBe(0);
    // The same URL is called where http is allowed.
    expect((await guardedFetch()(`${up.url}/plain`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(asked).toBe(1);
  });

  it('a stream that never opens is given up after the request timeout; one that opened runs on', async () => {
    const streamFetch = createUpstreamFetch({
      dispatcher: createGuardedAgent({ policy, connectTimeoutMs: 5_000 }),
      headers: { accept: 'text/event-stream' },
      allowHttp: true,
      requestTimeoutMs: 200,
      log: { lastStatus: undefined, redirected: false },
    });
    up.route('/silent', () => undefined);
    const err = await streamFetch(`${up.url}/silent`, { method: 'POST', body: '{}' }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('TimeoutError');
    // Opened at once, its first event later than the request timeout: still read.
    up.route('/slow-events', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      setTimeout(() => res.end('data: {}\n\n'), 400);
    });
    const opened = await streamFetch(`${up.url}/slow-events`, { method: 'POST', body: '{}' });
    expect(await opened.text()).toContain('data: {}');
  });

  it('a 2xx answer stops at maxReplyBytes, streamed or declared by Content-Length', async () => {
    up.route('/reply', streamed('{"x":"', 3, '"}').handler);
    const response = await guardedFetch(MiB)(`${up.url}/reply`, { method: 'POST', body: '{}' });
    const err = await response.json().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as Error).message).toBe(
      "the upstream agent's answer is larger than the limit of 1 MiB (1048576 bytes)",
    );

    const declaredBody = JSON.stringify({ pad: 'b'.repeat(2 * MiB) });
    up.route('/declared', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json', 'content-length': String(declaredBody.length) })
        .end(declaredBody),
    );
    const declared = await guardedFetch(MiB)(`${up.url}/declared`, { method: 'POST', body: '{}' });
    expect(Number(declared.headers.get('content-length'))).toBeGreaterThan(MiB);
    await expect(declared.text()).rejects.toThrow(ResponseTooLargeError);

    // Under the limit, the answer is read as it is.
    up.route('/small', json({ ok: true }));
    await expect((await guardedFetch(MiB)(`${up.url}/small`)).json()).resolves.toEqual({ ok: true });
  });

  it('an error body stops at 64 KiB', async () => {
    up.route('/error', streamed('{"error":"', 2, '"}', 500).handler);
    const response = await guardedFetch()(`${up.url}/error`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(500);
    await expect(response.text()).rejects.toThrow(
      "the upstream agent's error answer is larger than the limit of 64 KiB (65536 bytes)",
    );
  });

  it('a run whose upstream answers past the limit fails as an invalid answer', async () => {
    up.route(
      '/huge-rpc.json',
      json(
        card(up.url, {
          supportedInterfaces: [
            { url: `${up.url}/huge-rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
        }),
      ),
    );
    up.route(
      '/huge-rpc',
      streamed('{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","pad":"', 4, '"}}}').handler,
    );
    const agent = createUpstreamAgent({
      secrets: createSecretBox('test-secret-key-0123456789'),
      policy,
      maxReplyBytes: MiB,
    });
    const harness = new AgentHarness(agent, {
      settings: { cardUrl: `${up.url}/huge-rpc.json` },
      onAgentError: 'fail-task',
    });
    const result = await harness.send('post');
    expect(result.error).toBeInstanceOf(AgentFailure);
    expect((result.error as AgentFailure).safeMessage).toBe(
      'The upstream agent answered with an invalid A2A response.',
    );
    expect((result.error as Error).message).toContain('larger than the limit of 1 MiB');
  });
});
