import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  freePort,
  startProcess,
  waitForReadiness,
  type RunningProcess,
  type TestDatabase,
} from '@switchyard/testing';

// The pusher delivers by polling Postgres; Redis's wake-ups only speed it up. So Redis is reported
// on /readyz but does not make it unready (a Redis outage must not stall a rollout), and a SIGTERM
// without Redis drains at once. The real entry point, with nothing listening at REDIS_URL.
let db: TestDatabase;
let proc: RunningProcess | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  proc?.signal('SIGKILL');
  await db.drop();
});

describe('apps/pusher/src/main.ts without Redis', () => {
  it('is ready, reports Redis as down, and exits cleanly on SIGTERM', async () => {
    const opsPort = await freePort();
    proc = startProcess('apps/pusher/src/main.ts', {
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      PUSHER_OPS_PORT: String(opsPort),
      LOG_LEVEL: 'info',
    });
    const ready = await waitForReadiness(`http://127.0.0.1:${opsPort}`, {
      until: (r) => r.body.checks.running === true,
      what: 'pusher running',
    });
    expect(ready).toEqual({
      code: 200,
      body: { status: 'ready', checks: { postgres: true, migrations: true, redis: false, running: true } },
    });
    proc.signal('SIGTERM');
    expect(await proc.exited).toBe(0);
  }, 120_000);
});
