import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  startProcess,
  waitFor,
  type RunningProcess,
  type TestDatabase,
  type TestRedis,
} from '@switchyard/testing';

// Node 24 exits on an unhandled rejection: one agent's `void ctx.setStatus()` refused after a
// cancel would end every run of its worker. The worker logs it and goes on; an uncaught
// exception stays fatal.
const preload = pathToFileURL(fileURLToPath(new URL('./fixtures/reject-on-signal.ts', import.meta.url)));
let db: TestDatabase;
let redis: TestRedis;
let proc: RunningProcess | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  redis = createTestRedis();
});
afterAll(async () => {
  proc?.signal('SIGKILL');
  await redis.cleanup();
  await db.drop();
});

describe('apps/worker/src/main.ts and errors nobody handled', () => {
  it('logs an unhandled rejection (RunEndedError at warn) and keeps running; exits on an uncaught exception', async () => {
    const opsPort = await freePort();
    proc = startProcess('apps/worker/src/main.ts', {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      SWITCHYARD_REDIS_PREFIX: redis.prefix,
      WORKER_OPS_PORT: String(opsPort),
      LOG_LEVEL: 'info',
      NODE_OPTIONS: `--import=${preload.href}`,
    });
    const running = proc;
    const healthy = async () =>
      (await fetch(`http://127.0.0.1:${opsPort}/healthz`).catch(() => null))?.status === 200;
    // Started: the handlers are installed before the ops server listens.
    await waitFor(healthy, { what: 'worker /healthz', timeoutMs: 60_000 });

    running.signal('SIGUSR2');
    const rejections = await waitFor(
      () => {
        const logged = running.logs().filter((l) => String(l.msg).startsWith('unhandled rejection'));
        return logged.length === 2 ? logged : null;
      },
      { what: 'both rejections logged' },
    );
    const byType = Object.fromEntries(rejections.map((l) => [(l.err as { type: string }).type, l.level]));
    expect(byType).toEqual({ RunEndedError: 40, Error: 50 });
    expect(await healthy()).toBe(true);
    expect(running.child.exitCode).toBeNull();

    running.signal('SIGHUP');
    expect(await running.exited).toBe(1);
    expect(running.logs().find((l) => l.msg === 'uncaught exception: exiting')?.level).toBe(60);
  }, 120_000);
});
