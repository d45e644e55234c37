import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@switchyard/testing';
import { startHarness, type Harness } from './support/harness.ts';
import { send } from './support/http.ts';
import { userMessage } from './support/messages.ts';

// Found in review: one tenant could hold the whole BODY_BYTES_IN_FLIGHT_MAX with a few large
// sends whose bytes it trickled (for Node's default 5 minutes, again and again), and every other
// tenant's requests were refused. A tenant holds at most half of the budget, and a request must
// arrive whole within HTTP_REQUEST_TIMEOUT_MS.
const LIMIT = 64 * 1024;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: {
      BODY_LIMIT_BYTES: String(LIMIT),
      BODY_BYTES_IN_FLIGHT_MAX: String(4 * LIMIT),
      HTTP_REQUEST_TIMEOUT_MS: '2000',
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

function sendBody(bytes: number): string {
  const message = userMessage('x'.repeat(bytes - 300));
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } });
}

const rpcPath = (tenant: string) => `/agents/${tenant}/echo/rpc`;

/** Headers and the first `sent` bytes of `body` go out; the rest never does. */
function partlySent(tenant: string, key: string, body: string, sent: number): ClientRequest {
  const req = request(new URL(`${h.url}${rpcPath(tenant)}`), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-api-key': key,
      'a2a-version': '1.0',
    },
  });
  req.on('error', () => undefined);
  req.write(body.slice(0, sent));
  return req;
}

const rpc = (tenant: string, key: string, body: string) =>
  send('POST', `${h.url}${rpcPath(tenant)}`, { key, raw: body });

describe('request bodies in flight, per tenant', () => {
  it("a tenant holding half the budget is refused more; another tenant's requests still pass", async () => {
    const { alice, carol } = h.fixtures.keys;
    // acme holds two bodies of nearly LIMIT each: nearly half of the budget of 4 × LIMIT.
    const held = [0, 1].map(() => partlySent('acme', alice, sendBody(LIMIT - 100), LIMIT - 2000));
    try {
      // Bytes are taken as they arrive: wait until both bodies' bytes are in.
      const refused = await waitFor(
        async () => {
          const r = await rpc('acme', alice, sendBody(LIMIT / 4));
          return r.status === 503 ? r : null;
        },
        { what: "acme's third body to be refused", timeoutMs: 10_000 },
      );
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body).toMatchObject({ error: { data: [{ reason: 'UNAVAILABLE' }] } });
      // The whole budget has room left, and globex's share is its own.
      expect((await rpc('globex', carol, sendBody(LIMIT / 4))).status).toBe(200);
    } finally {
      for (const r of held) r.destroy();
    }
  });

  it('a request not sent whole within HTTP_REQUEST_TIMEOUT_MS is cut off, and its bytes given back', async () => {
    const { alice } = h.fixtures.keys;
    const stalled = partlySent('acme', alice, sendBody(LIMIT - 100), LIMIT - 2000);
    const answered = new Promise<number | 'closed'>((resolve) => {
      stalled.on('response', (res) => resolve(res.statusCode ?? 0));
      stalled.on('close', () => resolve('closed'));
    });
    // Node answers 408 where nothing was sent yet, or just closes the socket.
    expect([408, 'closed']).toContain(await answered);
    // Its bytes are no longer held: beside one more held body of acme's, a third fits its share.
    const more = partlySent('acme', alice, sendBody(LIMIT - 100), LIMIT - 2000);
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect((await rpc('acme', alice, sendBody(LIMIT / 4))).status).toBe(200);
    } finally {
      more.destroy();
    }
  });
});
