import { freePort, startProcess, waitForReadiness, type RunningProcess } from '@switchyard/testing';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from './support/console-harness.ts';

// The real entry point: config from the environment, listen, probes, drain on SIGTERM.
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

describe('apps/console/src/main.ts', () => {
  it('serves probes and pages, then exits cleanly on SIGTERM', async () => {
    const port = await freePort();
    proc = startProcess('apps/console/src/main.ts', {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      SWITCHYARD_REDIS_PREFIX: redis.prefix,
      SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN,
      CONSOLE_PORT: String(port),
      LOG_LEVEL: 'info',
    });
    const base = `http://127.0.0.1:${port}`;
    const ready = await waitForReadiness(base, { what: 'console /readyz' });
    expect(ready.body.status).toBe('ready');
    const tasks = await fetch(`${base}/api/tenants`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(tasks.status).toBe(200);
    expect(proc.logs().some((l) => l.msg === 'console listening')).toBe(true);
    // A cancel's hint and a replay's push wake-up go through the commands connection, whose time
    // limit keeps a hung Redis from holding their answers.
    const roles = await redis.clientRoles('console', proc.child.pid!);
    expect(roles).toContain('subscriber');
    expect(roles).toContain('commands');
    expect(proc.lines.join('\n')).not.toContain(ADMIN_TOKEN);
    proc.signal('SIGTERM');
    expect(await proc.exited).toBe(0);
  });
});
