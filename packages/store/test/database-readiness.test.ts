import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseReadiness } from '../src/index.ts';

// Found in review: the worker's, pusher's and console's readiness queried Postgres with no time
// limit, so on a busy pool a probe waited for a connection (10 s by default) past the
// orchestrator's probe timeout, and every probe queued another waiter.
let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb.drop();
});

describe('databaseReadiness', () => {
  it('answers not ready within its time limit when the pool has no connection to spare', async () => {
    const pool = new pg.Pool({ connectionString: testDb.url, max: 1 });
    const held = await pool.connect();
    try {
      const probes = await Promise.all([1, 2, 3].map(() => databaseReadiness(pool, 200)));
      expect(probes).toEqual([1, 2, 3].map(() => ({ postgres: false, migrations: false })));
      // The three shared one check: one waiter on the pool, not three.
      expect(pool.waitingCount).toBe(1);
    } finally {
      held.release();
    }
    // A check stuck past its time is not shared on: the next probe asks anew, and gets its answer.
    expect(await databaseReadiness(pool, 10_000)).toEqual({ postgres: true, migrations: true });
    await pool.end();
  });
});
