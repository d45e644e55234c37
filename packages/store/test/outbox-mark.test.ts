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

describe('markFailed', () => {
  it('schedules a retry: pending at nextAttemptAt, lock cleared, error and status kept', async () => {
    const key = await claimedTask();
    const nextAttemptAt = new Date(Date.now() + 120_000);
    expect(
      await outbox.markFailed({ ...key, workerId: 'w1', error: 'HTTP 503', status: 503, nextAttemptAt }),
    ).toBe(true);
    expect(await row(key)).toMatchObject({
      status: 'pending',
      nextAttemptAt,
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
    await outbox.markFailed({ ...key, workerId: 'w1', error: 'x'.repeat(5000), nextAttemptAt: new Date() });
    expect((await row(key)).lastError).toHaveLength(1000);
  });

  it('is refused for a worker that does not hold the claim', async () => {
    const key = await claimedTask('w1');
    expect(await outbox.markFailed({ ...key, workerId: 'w2', error: 'x', nextAttemptAt: new Date() })).toBe(
      false,
    );
    expect(await row(key)).toMatchObject({ lockedBy: 'w1', lastError: null });
  });
});
