import pg from 'pg';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createDb, type Db } from '../src/db.ts';
import { PostgresOutboxStore } from '../src/outbox/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import { expireLocks, seedPushedTask } from './outbox-fixtures.ts';

const secrets = createSecretBox('outbox-mark-test-key');
let testDb: TestDatabase;
let db: Db;
let outbox: PostgresOutboxStore;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  outbox = new PostgresOutboxStore({ db, secrets });
  await new PostgresAdminStore({ db, secrets }).createTenant({ id: 'acme', name: 'Acme' });
});
afterEach(async () => {
  await db.deleteFrom('push_deliveries').execute();
});
afterAll(async () => {
  await testDb.drop();
});

const claim = (workerId: string) => outbox.claimDueDeliveries({ workerId, limit: 10, lockMs: 30_000 });

async function claimedTask(workerId = 'w1') {
  const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', [1]);
  await claim(workerId);
  return { tenantId: 'acme', taskId, configId, seq: 1 };
}

/** A pool whose every query fails: nothing listens on port 1. */
function brokenPool(): pg.Pool {
  return new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', max: 1 });
}

async function row(key: { taskId: string }) {
  const [r] = await outbox.listDeliveries('acme', key.taskId);
  if (!r) throw new Error('delivery row missing');
  return r;
}

describe('markDelivered', () => {
  it('records delivered_at and the HTTP status and clears the lock', async () => {
    const key = await claimedTask();
    expect(await outbox.markDelivered({ ...key, workerId: 'w1', status: 204 })).toBe(true);
    expect(await row(key)).toMatchObject({
      status: 'delivered',
      lastStatus: 204,
      lockedBy: null,
      lockedUntil: null,
    });
    expect((await row(key)).deliveredAt).toBeInstanceOf(Date);
  });

  it('is refused for a worker that does not hold the claim', async () => {
    const key = await claimedTask('w1');
    expect(await outbox.markDelivered({ ...key, workerId: 'intruder', status: 200 })).toBe(false);
    expect(await row(key)).toMatchObject({ status: 'pending', lockedBy: 'w1' });
  });

  it("a stale worker's mark is refused after its lock lapsed and another worker claimed", async () => {
    const key = await claimedTask('stale');
    await expireLocks(db, 'acme', key.taskId);
    expect(await claim('fresh')).toHaveLength(1);
    expect(await outbox.markDelivered({ ...key, workerId: 'stale', status: 200 })).toBe(false);
    expect(await outbox.markFailed({ ...key, workerId: 'stale', error: 'timeout', dead: true })).toBe(false);
    expect(await row(key)).toMatchObject({ status: 'pending', lockedBy: 'fresh', attempts: 2 });
    expect(await outbox.markDelivered({ ...key, workerId: 'fresh', status: 200 })).toBe(true);
  });

  it('a delivered delivery cannot be marked again', async () => {
    const key = await claimedTask();
    await outbox.markDelivered({ ...key, workerId: 'w1', status: 200 });
    expect(await outbox.markDelivered({ ...key, workerId: 'w1', status: 200 })).toBe(false);
    expect(await outbox.markFailed({ ...key, workerId: 'w1', error: 'x', dead: true })).toBe(false);
    expect((await row(key)).status).toBe('delivered');
  });
});

describe('markDelivered, many at once', () => {
  it('marks sent together (one statement per tenant) each answer for their own row and claim', async () => {
    await new PostgresAdminStore({ db, secrets }).createTenant({ id: 'globex', name: 'Globex' });
    const seeded = [
      ...(await Promise.all([1, 2, 3, 4].map(() => seedPushedTask(db, secrets, 'acme', [1])))).map((s) => ({
        ...s,
        tenantId: 'acme',
      })),
      ...(await Promise.all([1, 2].map(() => seedPushedTask(db, secrets, 'globex', [1])))).map((s) => ({
        ...s,
        tenantId: 'globex',
      })),
    ];
    // One delivery per task: a task's deliveries are claimed in order, one at a time.
    expect(await claim('w1')).toHaveLength(6);
    const keys = seeded.map(({ tenantId, taskId, configId }) => ({ tenantId, taskId, configId, seq: 1 }));
    const [already, ...rest] = keys;
    await outbox.markDelivered({ ...already!, workerId: 'w1', status: 200 });
    // All issued in one turn: the first runs alone, the rest go together behind it.
    const answers = await Promise.all([
      outbox.markDelivered({ ...already!, workerId: 'w1', status: 200 }),
      outbox.markDelivered({ ...rest[0]!, workerId: 'intruder', status: 200 }),
      ...rest.map((key, k) => outbox.markDelivered({ ...key, workerId: 'w1', status: 200 + k })),
    ]);
    expect(answers).toEqual([false, false, ...rest.map(() => true)]);
    for (const [k, key] of rest.entries()) {
      const [r] = (await outbox.listDeliveries(key.tenantId, key.taskId)).filter((d) => d.seq === key.seq);
      expect(r).toMatchObject({ status: 'delivered', lastStatus: 200 + k, lockedBy: null });
    }
  });

  it('a mark that cannot reach Postgres fails its callers and leaves the row claimed (sent again later)', async () => {
    const key = await claimedTask();
    const broken = new PostgresOutboxStore({ db: createDb(brokenPool()), secrets });
    await expect(broken.markDelivered({ ...key, workerId: 'w1', status: 200 })).rejects.toThrow();
    expect(await row(key)).toMatchObject({ status: 'pending', lockedBy: 'w1' });
  });
});

describe('markFailed', () => {
  it('schedules a retry: pending retryInMs after the database clock, lock cleared, error and status kept', async () => {
    const key = await claimedTask();
    const { rows } = await sql<{ now: Date }>`SELECT now() AS now`.execute(db);
    expect(
      await outbox.markFailed({ ...key, workerId: 'w1', error: 'HTTP 503', status: 503, retryInMs: 120_000 }),
    ).toBe(true);
    const { nextAttemptAt } = await row(key);
    expect(nextAttemptAt.getTime() - rows[0]!.now.getTime()).toBeGreaterThanOrEqual(120_000);
    expect(nextAttemptAt.getTime() - rows[0]!.now.getTime()).toBeLessThan(180_000);
    expect(await row(key)).toMatchObject({
      status: 'pending',
      lastError: 'HTTP 503',
      lastStatus: 503,
      lockedBy: null,
      attempts: 1,
    });
    expect(await claim('w2')).toEqual([]);
  });

  it('dead-letters with dead: true and keeps last_error', async () => {
    const key = await claimedTask();
    expect(await outbox.markFailed({ ...key, workerId: 'w1', error: 'connection refused', dead: true })).toBe(
      true,
    );
    expect(await row(key)).toMatchObject({
      status: 'dead',
      lastError: 'connection refused',
      lastStatus: null,
      lockedBy: null,
    });
  });

  it('truncates a long error to 1000 characters', async () => {
    const key = await claimedTask();
    await outbox.markFailed({ ...key, workerId: 'w1', error: 'x'.repeat(5000), retryInMs: 0 });
    expect((await row(key)).lastError).toHaveLength(1000);
  });

  it('is refused for a worker that does not hold the claim', async () => {
    const key = await claimedTask('w1');
    expect(await outbox.markFailed({ ...key, workerId: 'w2', error: 'x', retryInMs: 0 })).toBe(false);
    expect(await row(key)).toMatchObject({ lockedBy: 'w1', lastError: null });
  });
});
