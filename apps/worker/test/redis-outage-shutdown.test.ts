import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  startProcess,
  startTcpProxy,
  waitFor,
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

type Readiness = { status: string; checks: Record<string, boolean> };

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
    const readiness = async () => {
      const res = await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => null);
      return res ? ((await res.json()) as Readiness) : null;
    };
    // A cold Node start can take many seconds while other test files fill both cores.
    await waitFor(async () => (await readiness())?.status === 'ready', {
      what: 'worker /readyz',
      timeoutMs: 60_000,
    });
    await proxy.cut();
    await waitFor(async () => (await readiness())?.checks.redis === false, {
      what: 'the worker to miss Redis',
    });
    proc.signal('SIGTERM');
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000).unref());
    expect(await Promise.race([proc.exited, hung])).toBe(0);
    expect(proc.logs().some((l) => l.msg === 'stopped')).toBe(true);
  }, 120_000);
});
