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

/**
 * A request whose headers went out and whose body is sent only up to `sent` bytes: the gateway
 * holds what arrived, waiting for the rest.
 */
function partlySent(agent: string, body: string, sent: number): ClientRequest {
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
  req.write(body.slice(0, sent));
  return req;
}

const rpc = (agent: string, body: string) =>
  send('POST', `${h.url}/agents/acme/${agent}/rpc`, { key: h.fixtures.keys.alice, raw: body });

describe('BODY_BYTES_IN_FLIGHT_MAX', () => {
  it('refuses a body that does not fit beside those held, with Unavailable and Retry-After; then takes it', async () => {
    // Bytes are taken as they arrive: the held request's must all be in before the next one
    // starts, or the two race for the room and either may be the one refused. A busy machine may
    // take its time to read them, so the try is repeated, each time waiting longer.
    let refused: Awaited<ReturnType<typeof rpc>> | undefined;
    for (let attempt = 1; attempt <= 6 && refused?.status !== 503; attempt++) {
      const held = partlySent('echo', sendBody(LIMIT - 1000), LIMIT - 5000);
      try {
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        refused = await rpc('echo', sendBody(LIMIT / 2));
        if (refused.status !== 503) continue;
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(refused.body).toMatchObject({ error: { code: -32603, data: [{ reason: 'UNAVAILABLE' }] } });
        // A small body does not fit either: the budget is all but full.
        expect((await rpc('echo', sendBody(8000))).status).toBe(503);
      } finally {
        held.destroy();
      }
    }
    expect(refused?.status).toBe(503);
    // The held request is gone: its bytes are given back.
    await waitFor(async () => (await rpc('echo', sendBody(LIMIT / 2))).status === 200, {
      what: 'the budget to be free again',
    });
  });

  it('holds what a slow client sent, not what it declared: a trickle blocks nobody', async () => {
    const trickle = partlySent('echo', sendBody(LIMIT - 1000), 1000);
    try {
      // Sent after the trickle's first bytes reached the gateway; it declared nearly the budget.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await rpc('echo', sendBody(LIMIT / 2))).status).toBe(200);
    } finally {
      trickle.destroy();
    }
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
