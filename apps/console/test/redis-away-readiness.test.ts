import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  freePort,
  startProcess,
  waitFor,
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
    // A cold Node start can take many seconds while other test files fill both cores.
    const ready = await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
        return res
          ? { code: res.status, body: (await res.json()) as { checks: Record<string, boolean> } }
          : null;
      },
      { what: 'console /readyz', timeoutMs: 60_000 },
    );
    expect(ready).toEqual({
      code: 200,
      body: { status: 'ready', checks: { postgres: true, migrations: true, redis: false, accepting: true } },
    });
    proc.signal('SIGTERM');
    expect(await proc.exited).toBe(0);
  }, 120_000);
});
