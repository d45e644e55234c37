import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '@switchyard/store';
import { startTcpProxy, type TcpProxy } from '@switchyard/testing';
import { startHarness, type Harness, type RunningGateway } from './support/harness.ts';
import { send } from './support/http.ts';

// The gateway answers a Postgres outage itself (503 + Retry-After, on its own bindings), so its
// readiness must not hang on Postgres or fail with it: that took every replica out of the load
// balancer at once, and clients got the ingress's HTML 503 instead. A replica whose Postgres
// connections go through a proxy the test freezes and cuts.
let h: Harness;
let proxy: TcpProxy;
let pool: pg.Pool;
let replica: RunningGateway;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  const target = new URL(h.db.url);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  target.port = String(proxy.port);
  // As the processes' pools: a call waits 10 s for a connection before it fails.
  pool = createPool({ connectionString: target.toString(), connectTimeoutMs: 10_000, maxConnections: 2 });
  replica = await h.startGateway({}, { pool });
});
afterAll(async () => {
  proxy?.thaw();
  await replica?.stop();
  await pool?.end();
  await proxy?.close();
  await h?.stop();
});

type Readiness = { status: string; checks: Record<string, boolean> };
async function readiness(url: string) {
  // Well under the 10 s a query waits for a pool connection: the probe must answer first.
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) });
  return { code: res.status, body: (await res.json()) as Readiness };
}

describe('gateway readiness and Postgres', () => {
  it('stays ready while Postgres hangs or is gone, and says so; the API answers 503 itself', async () => {
    expect(await readiness(replica.url)).toEqual({
      code: 200,
      body: { status: 'ready', checks: { postgres: true, migrations: true, redis: true, accepting: true } },
    });

    proxy.freeze();
    const hanging = await readiness(replica.url);
    expect(hanging.code).toBe(200);
    // Migrations were current once, and a schema only moves forward: not asked again.
    expect(hanging.body.checks).toEqual({ postgres: false, migrations: true, redis: true, accepting: true });
    proxy.thaw();

    await proxy.cut();
    const gone = await readiness(replica.url);
    expect(gone.code).toBe(200);
    expect(gone.body.checks).toMatchObject({ postgres: false, migrations: true });
    const refused = await send('GET', `${replica.url}/agents/acme/echo/rest/tasks/${randomUUID()}`, {
      key: h.fixtures.keys.alice,
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    await proxy.restore();
  });

  it('is not ready while the schema is behind this release', async () => {
    const { rows } = await h.db.pool.query<{ version: number; name: string; checksum: string }>(
      'DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING version, name, checksum',
    );
    const behind = await h.startGateway();
    try {
      const unready = await readiness(behind.url);
      expect(unready.code).toBe(503);
      expect(unready.body.checks).toMatchObject({ postgres: true, migrations: false });
    } finally {
      const { version, name, checksum } = rows[0]!;
      await h.db.pool.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        version,
        name,
        checksum,
      ]);
    }
    expect((await readiness(behind.url)).code).toBe(200);
  });
});
