import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createDb, type Db } from '../src/db.ts';
import { PostgresOutboxStore } from '../src/outbox/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import {
  expireLocks,
  seedDeliveries,
  seedEvents,
  seedPushConfig,
  seedPushedTask,
} from './outbox-fixtures.ts';

// ARCHITECTURE.md §7: "Per task, deliveries go out in order."
const secrets = createSecretBox('outbox-ordering-test-key');
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

const claim = (workerId = 'w1') => outbox.claimDueDeliveries({ workerId, limit: 10, lockMs: 30_000 });
const seqs = (ds: { seq: number }[]) => ds.map((d) => d.seq);

describe('per-task delivery order', () => {
  it('seq 2 is not claimable while seq 1 is pending and in flight', async () => {
    await seedPushedTask(db, secrets, 'acme', [1, 2, 3]);
    expect(seqs(await claim('w1'))).toEqual([1]);
    expect(await claim('w2')).toEqual([]);
  });

  it('seq 2 is not claimable while seq 1 waits for its retry', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', [2]);
    await seedEvents(db, 'acme', taskId, [1]);
    await seedDeliveries(db, {
      tenantId: 'acme',
      taskId,
      configId,
      seqs: [1],
      nextAttemptAt: new Date(Date.now() + 60_000),
    });
    expect(await claim()).toEqual([]);
  });

  it('seq 2 becomes claimable once seq 1 is delivered', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', [1, 2]);
    await claim('w1');
    await outbox.markDelivered({ tenantId: 'acme', taskId, configId, seq: 1, workerId: 'w1', status: 200 });
    expect(seqs(await claim('w1'))).toEqual([2]);
  });

  it('seq 2 becomes claimable once seq 1 is dead: one bad event does not block the rest', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', [1, 2]);
    await claim('w1');
    await outbox.markFailed({
      tenantId: 'acme',
      taskId,
      configId,
      seq: 1,
      workerId: 'w1',
      error: 'HTTP 500',
      status: 500,
      dead: true,
    });
    expect(seqs(await claim('w1'))).toEqual([2]);
  });

  it('seq 1 stays first after a lapsed lock: the retry of 1 is claimed, not 2', async () => {
    const { taskId } = await seedPushedTask(db, secrets, 'acme', [1, 2]);
    await claim('w1');
    await expireLocks(db, 'acme', taskId);
    const retried = await claim('w2');
    expect(retried.map((d) => [d.seq, d.attempts])).toEqual([[1, 2]]);
  });

  it('order is per (task, config): other configs and other tasks are not blocked', async () => {
    const a = await seedPushedTask(db, secrets, 'acme', [1, 2]);
    await seedPushConfig(db, secrets, { tenantId: 'acme', taskId: a.taskId, id: 'second' });
    await seedDeliveries(db, { tenantId: 'acme', taskId: a.taskId, configId: 'second', seqs: [1, 2] });
    const b = await seedPushedTask(db, secrets, 'acme', [1, 2]);
    const claimed = await claim();
    expect(claimed.map((d) => `${d.taskId === a.taskId ? 'a' : 'b'}/${d.configId}/${d.seq}`).sort()).toEqual(
      ['a/hook/1', 'a/second/1', 'b/hook/1'].sort(),
    );
    expect(b.configId).toBe('hook');
  });
});
