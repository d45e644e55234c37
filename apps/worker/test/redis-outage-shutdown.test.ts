import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  startProcess,
  startTcpProxy,
  waitForReadiness,
  type RunningProcess,
  type TcpProxy,
  type TestDatabase,
  type TestRedis,
} from '@switchyard/testing';

// Redis gone at SIGTERM: BullMQ's graceful closes wait for a connection `end` that a client
// reconnecting to nothing never emits (BullMQ #4656), and the worker outlived its grace by far.
let db: TestDatabase;
let redis: TestRedis;
let proxy: TcpProxy;
let proc: RunningProcess | undefined;

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

describe('apps/worker/src/main.ts with Redis gone at SIGTERM', () => {
  it('drains and exits cleanly within its grace, not when Redis comes back', async () => {
    const opsPort = await freePort();
    proc = startProcess('apps/worker/src/main.ts', {
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      SWITCHYARD_REDIS_PREFIX: redis.prefix,
      WORKER_OPS_PORT: String(opsPort),
      SHUTDOWN_GRACE_MS: '500',
      // Far away: the drain itself must end, not the deadline end it.
      SHUTDOWN_DEADLINE_MS: '60000',
      TABLE_UPKEEP_INTERVAL_MS: '1000',
      LOG_LEVEL: 'info',
    });
    const ops = `http://127.0.0.1:${opsPort}`;
    await waitForReadiness(ops, { until: (r) => r.body.status === 'ready', what: 'worker /readyz' });
    await proxy.cut();
    await waitForReadiness(ops, {
      until: (r) => r.body.checks.redis === false,
      what: 'the worker to miss Redis',
      timeoutMs: 15_000,
    });
    proc.signal('SIGTERM');
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000).unref());
    expect(await Promise.race([proc.exited, hung])).toBe(0);
    expect(proc.logs().some((l) => l.msg === 'stopped')).toBe(true);
  }, 120_000);
});
