import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  readReadiness,
  startProcess,
  startTcpProxy,
  waitFor,
  waitForReadiness,
  type RunningProcess,
  type TcpProxy,
  type TestDatabase,
  type TestRedis,
} from '@switchyard/testing';

// The real entry point with Redis behind a proxy the test cuts: a gateway must start during a
// Redis outage (or Kubernetes' startup probe kills it into CrashLoopBackOff), take no traffic
// until its revocation channel is subscribed, and drain without waiting for Redis at SIGTERM.
let db: TestDatabase;
let redis: TestRedis;
let proxy: TcpProxy;
let proc: RunningProcess;
let base: string;

beforeAll(async () => {
  db = await createTestDatabase();
  redis = createTestRedis();
  const target = new URL(redis.url);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
});
afterAll(async () => {
  proc?.signal('SIGKILL');
  await proxy.close();
  await redis.cleanup();
  await db.drop();
});

describe('apps/gateway/src/main.ts while Redis is unreachable', () => {
  it('listens at once, and is ready only once the revocation channel is subscribed', async () => {
    await proxy.cut();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = startProcess('apps/gateway/src/main.ts', {
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      SWITCHYARD_REDIS_PREFIX: redis.prefix,
      PORT: String(port),
      SHUTDOWN_GRACE_MS: '500',
      // Far away: the drain itself must end, not the deadline end it.
      SHUTDOWN_DEADLINE_MS: '60000',
      LOG_LEVEL: 'info',
    });
    // A cold Node start can take many seconds while other test files fill both cores.
    await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => null))?.status === 200, {
      what: 'the gateway to listen',
      timeoutMs: 60_000,
    });
    const unready = await readReadiness(base);
    expect(unready?.code).toBe(503);
    expect(unready?.body.checks).toMatchObject({ accepting: false, redis: false, migrations: true });

    await proxy.restore();
    const ready = await waitForReadiness(base, { what: 'ready once subscribed', timeoutMs: 20_000 });
    // (Its other connections may still be waiting to reconnect: Redis itself is advisory.)
    expect(ready.body.checks).toMatchObject({ accepting: true, migrations: true });
  }, 120_000);

  it('drains and exits cleanly at SIGTERM when Redis has gone again', async () => {
    await proxy.cut();
    await waitForReadiness(base, {
      until: (r) => r.body.checks.redis === false,
      what: 'the gateway to miss Redis',
      timeoutMs: 15_000,
    });
    // Redis is advisory for the gateway: still ready.
    expect((await readReadiness(base))?.code).toBe(200);
    proc.signal('SIGTERM');
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000).unref());
    expect(await Promise.race([proc.exited, hung])).toBe(0);
  }, 60_000);
});
