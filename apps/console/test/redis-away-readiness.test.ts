import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  freePort,
  startProcess,
  waitForReadiness,
  type RunningProcess,
  type TestDatabase,
} from '@switchyard/testing';
import { ADMIN_TOKEN } from './support/console-harness.ts';

// A Redis outage is exactly when operators need the console: Redis is reported on /readyz but
// does not make the console unready. The real entry point, with nothing listening at REDIS_URL.
let db: TestDatabase;
let proc: RunningProcess | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  proc?.signal('SIGKILL');
  await db.drop();
});

describe('apps/console/src/main.ts without Redis', () => {
  it('is ready, reports Redis as down, and exits cleanly on SIGTERM', async () => {
    const port = await freePort();
    proc = startProcess('apps/console/src/main.ts', {
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN,
      CONSOLE_PORT: String(port),
      LOG_LEVEL: 'info',
    });
    // Its first answer, whatever it is: the console must not answer unready for want of Redis.
    const ready = await waitForReadiness(`http://127.0.0.1:${port}`, {
      until: () => true,
      what: 'console /readyz',
    });
    expect(ready).toEqual({
      code: 200,
      body: { status: 'ready', checks: { postgres: true, migrations: true, redis: false, accepting: true } },
    });
    proc.signal('SIGTERM');
    expect(await proc.exited).toBe(0);
  }, 120_000);
});
