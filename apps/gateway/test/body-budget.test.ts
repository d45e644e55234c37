import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@switchyard/testing';
import { startHarness, type Harness } from './support/harness.ts';
import { send } from './support/http.ts';
import { userMessage } from './support/messages.ts';

// BODY_BYTES_IN_FLIGHT_MAX: a gateway holds at most so many bytes of request bodies at once, since
// each costs it several times its size while its request runs. Here the budget is one body.
const LIMIT = 256 * 1024;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { BODY_LIMIT_BYTES: String(LIMIT), BODY_BYTES_IN_FLIGHT_MAX: String(LIMIT) },
  });
});
afterAll(async () => {
  await h?.stop();
});

/** A SendMessage body of about `bytes`, of a message with its own id. */
function sendBody(bytes: number, method = 'SendMessage'): string {
  const message = userMessage('x'.repeat(bytes - 300));
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message } });
}

/** A request whose headers went out and whose body is sent only in part: the gateway holds it. */
function halfSent(agent: string, body: string): ClientRequest {
  const url = new URL(`${h.url}/agents/acme/${agent}/rpc`);
  const req = request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-api-key': h.fixtures.keys.alice,
      'a2a-version': '1.0',
    },
  });
  req.on('error', () => undefined);
  req.write(body.slice(0, 1000));
  return req;
}

const rpc = (agent: string, body: string) =>
  send('POST', `${h.url}/agents/acme/${agent}/rpc`, { key: h.fixtures.keys.alice, raw: body });

describe('BODY_BYTES_IN_FLIGHT_MAX', () => {
  it('refuses a body that does not fit beside those held, with Unavailable and Retry-After; then takes it', async () => {
    const held = halfSent('echo', sendBody(LIMIT - 1000));
    try {
      // The held request's headers must have reached the gateway before the next one.
      let refused: Awaited<ReturnType<typeof rpc>> | undefined;
      await waitFor(async () => {
        refused = await rpc('echo', sendBody(LIMIT / 2));
        return refused.status === 503;
      });
      expect(refused!.headers.get('retry-after')).toBe('1');
      expect(refused!.body).toMatchObject({ error: { code: -32603, data: [{ reason: 'UNAVAILABLE' }] } });
      // A small body does not fit either: the budget is full.
      expect((await rpc('echo', sendBody(2000))).status).toBe(503);
    } finally {
      held.destroy();
    }
    // The held request is gone: its bytes are given back.
    await waitFor(async () => (await rpc('echo', sendBody(LIMIT / 2))).status === 200, {
      what: 'the budget to be free again',
    });
  });

  it('a stream lets go of its body once started, so a stream open for hours holds none', async () => {
    const stream = await fetch(`${h.url}/agents/acme/slow/rpc`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': h.fixtures.keys.alice,
        'a2a-version': '1.0',
        accept: 'text/event-stream',
      },
      body: sendBody(LIMIT - 1000, 'SendStreamingMessage'),
    });
    expect(stream.status).toBe(200);
    try {
      // The stream is open (the slow agent takes seconds); a body as large passes beside it.
      expect((await rpc('echo', sendBody(LIMIT - 1000))).status).toBe(200);
    } finally {
      await stream.body?.cancel();
    }
  });
});
