import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '@switchyard/store';
import { startTcpProxy, type TcpProxy } from '@switchyard/testing';
import { startHarness, type Harness, type RunningGateway } from './support/harness.ts';
import { send } from './support/http.ts';
import { userMessage } from './support/messages.ts';

// Digest §5.3: Internal is 500, "503 + Retry-After for temporary failures". Postgres being away
// (down, restarting, out of connections) is such a failure: clients' retry policies act on 503
// and Retry-After, not on a 500 that looks permanent. A replica whose Postgres connections go
// through a proxy the test cuts.
let h: Harness;
let proxy: TcpProxy;
let pool: pg.Pool;
let replica: RunningGateway;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  const target = new URL(h.db.url);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  target.port = String(proxy.port);
  pool = createPool({ connectionString: target.toString(), connectTimeoutMs: 1000 });
  replica = await h.startGateway({}, { pool });
});
afterAll(async () => {
  await replica?.stop();
  await pool?.end();
  await proxy?.close();
  await h?.stop();
});

const key = () => h.fixtures.keys.alice;
const rpc = (method: string, params: unknown) =>
  send('POST', `${replica.url}/agents/acme/echo/rpc`, {
    key: key(),
    body: { jsonrpc: '2.0', id: 9, method, params },
  });
const rest = (method: string, path: string, body?: unknown) =>
  send(method, `${replica.url}/agents/acme/echo/rest${path}`, {
    key: key(),
    ...(body === undefined ? {} : { body }),
  });

describe('Postgres unavailable (digest §5.3)', () => {
  it('answers 503 with Retry-After on both bindings, changes nothing, and recovers', async () => {
    // Warm: the key is known and the pool has connections, so the cut hits statements in flight.
    expect((await rpc('GetTask', { id: randomUUID() })).body).toMatchObject({ error: { code: -32001 } });
    await proxy.cut();

    const onRpc = await rpc('GetTask', { id: randomUUID() });
    expect(onRpc.status).toBe(503);
    expect(onRpc.headers.get('retry-after')).toBe('2');
    expect(onRpc.body).toMatchObject({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32603, data: [{ reason: 'UNAVAILABLE', domain: 'a2a-protocol.org' }] },
    });
    expect(onRpc.text).not.toMatch(/ECONNRE|terminated|at .*\.ts/);

    const onRest = await rest('POST', '/message:send', { message: userMessage('while down') });
    expect(onRest.status).toBe(503);
    expect(onRest.headers.get('retry-after')).toBe('2');
    expect(onRest.body).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });

    const onRpcSend = await rpc('SendMessage', { message: userMessage('while down') });
    expect(onRpcSend.status).toBe(503);

    await proxy.restore();
    const back = await rest('GET', `/tasks/${randomUUID()}`);
    expect(back.status).toBe(404);
    // Nothing was created by the refused sends.
    const { rows } = await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks');
    expect(rows[0]!.n).toBe(0);
  });
});
