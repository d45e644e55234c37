import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@switchyard/testing';
import { startHarness, type Harness, type RunningGateway } from '../support/harness.ts';
import { userMessage } from '../support/messages.ts';

// Issue 8, security suite: connection limits. Each gateway process holds at most
// SSE_MAX_STREAMS streams, SSE_MAX_STREAMS_PER_TENANT per tenant and SSE_MAX_STREAMS_PER_CREDENTIAL
// per key; past any of them a stream request
// is 429 with Retry-After and creates nothing. HTTP_MAX_CONNECTIONS caps open sockets.
let h: Harness;
let limited: RunningGateway;
const open: AbortController[] = [];
const A2A_VERSION_HEADERS = { 'A2A-Version': '1.0' };

beforeAll(async () => {
  h = await startHarness({ worker: false });
  limited = await h.startGateway({
    SSE_MAX_STREAMS: '3',
    SSE_MAX_STREAMS_PER_TENANT: '2',
    HTTP_MAX_CONNECTIONS: '40',
  });
});
afterAll(async () => {
  for (const c of open) c.abort();
  await h?.stop();
});

/** Opens a SendStreamingMessage stream and keeps it open (the worker is off: it never ends). */
async function openStream(tenant: string, key: string): Promise<Response> {
  const controller = new AbortController();
  open.push(controller);
  return fetch(`${limited.url}/agents/${tenant}/echo/rest/message:stream`, {
    method: 'POST',
    headers: { ...A2A_VERSION_HEADERS, 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ message: userMessage('hold the line') }),
    signal: controller.signal,
  });
}

async function taskCount(): Promise<number> {
  const r = await h.db.pool.query<{ n: string }>('select count(*) as n from tasks');
  return Number(r.rows[0]?.n);
}

describe('stream limits', () => {
  it('refuses a tenant past its stream limit, then the gateway past its own, creating nothing', async () => {
    const first = await openStream('acme', h.fixtures.keys.alice);
    const second = await openStream('acme', h.fixtures.keys.bob);
    expect([first.status, second.status]).toEqual([200, 200]);
    const before = await taskCount();
    const third = await openStream('acme', h.fixtures.keys.alice);
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await third.json()) as { error: { message: string } }).error.message).toMatch(/streams/);
    expect(await taskCount()).toBe(before);

    const globex = await openStream('globex', h.fixtures.keys.carol);
    expect(globex.status).toBe(200);
    const overGateway = await openStream('globex', h.fixtures.keys.carol);
    expect(overGateway.status).toBe(429);

    // Closing a stream frees its slot.
    open[0]!.abort();
    await waitFor(async () => (await openStream('acme', h.fixtures.keys.alice)).status === 200, {
      what: 'the freed slot to be reusable',
    });
  });

  it('JSON-RPC streams are counted and refused the same way', async () => {
    const rpc = await fetch(`${limited.url}/agents/acme/echo/rpc`, {
      method: 'POST',
      headers: {
        ...A2A_VERSION_HEADERS,
        'content-type': 'application/json',
        'x-api-key': h.fixtures.keys.alice,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendStreamingMessage',
        params: { message: userMessage('one too many') },
      }),
    });
    expect(rpc.status).toBe(429);
    const body = (await rpc.json()) as { id: unknown; error: { code: number } };
    expect(body.id).toBe(7);
  });
});

describe('stream limit per credential', () => {
  it('refuses one key past its own limit while another key of the tenant still opens streams', async () => {
    const perKey = await h.startGateway({ SSE_MAX_STREAMS_PER_CREDENTIAL: '1' });
    const stream = async (key: string) => {
      const controller = new AbortController();
      open.push(controller);
      return fetch(`${perKey.url}/agents/acme/echo/rest/message:stream`, {
        method: 'POST',
        headers: { ...A2A_VERSION_HEADERS, 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ message: userMessage('per key') }),
        signal: controller.signal,
      });
    };
    expect((await stream(h.fixtures.keys.alice)).status).toBe(200);
    const before = await taskCount();
    const again = await stream(h.fixtures.keys.alice);
    expect(again.status).toBe(429);
    expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/credential/);
    expect(await taskCount()).toBe(before);
    expect((await stream(h.fixtures.keys.bob)).status).toBe(200);
  });
});

describe('connection limit', () => {
  it('closes sockets past HTTP_MAX_CONNECTIONS at once', async () => {
    const { port } = new URL(limited.url);
    const sockets: net.Socket[] = [];
    try {
      // The streams above hold a few sockets already; open idle ones up to and past the cap.
      let refused = 0;
      for (let i = 0; i < 45 && refused === 0; i++) {
        const socket = net.connect(Number(port), '127.0.0.1');
        sockets.push(socket);
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        const answered = await new Promise<boolean>((resolve) => {
          socket.once('data', () => resolve(true));
          socket.once('close', () => resolve(false));
        });
        if (!answered) refused++;
      }
      expect(refused).toBe(1);
      expect(sockets.length).toBeLessThanOrEqual(41);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});
