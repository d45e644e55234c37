import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createDb, type Db } from '../src/db.ts';
import { PostgresOutboxStore, type ClaimedDelivery } from '../src/outbox/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import { seedPushedTask } from './outbox-fixtures.ts';

const secrets = createSecretBox('outbox-concurrency-test-key');
let testDb: TestDatabase;
let db: Db;
let outbox: PostgresOutboxStore;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  outbox = new PostgresOutboxStore({ db, secrets });
  await new PostgresAdminStore({ db, secrets }).createTenant({ id: 'acme', name: 'Acme' });
});
afterAll(async () => {
  await testDb.drop();
});

describe('concurrent claimers (FOR UPDATE SKIP LOCKED)', () => {
  it('get disjoint deliveries, and together get every due one exactly once', async () => {
    const TASKS = 60;
    for (let i = 0; i < TASKS; i++) await seedPushedTask(db, secrets, 'acme', [1]);

    // Eight pushers on eight pool connections, each claiming small batches until none are left.
    const pusher = async (workerId: string): Promise<ClaimedDelivery[]> => {
      const mine: ClaimedDelivery[] = [];
      for (;;) {
        const batch = await outbox.claimDueDeliveries({ workerId, limit: 3, lockMs: 60_000 });
        if (batch.length === 0) return mine;
        mine.push(...batch);
      }
    };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => pusher(`w${i}`)));

    const all = results.flat().map((d) => d.deliveryId);
    expect(all).toHaveLength(TASKS);
    expect(new Set(all).size).toBe(TASKS);
    // Every delivery was claimed once, by the worker that got it.
    const rows = await db
      .selectFrom('push_deliveries')
      .select(['task_id', 'attempts', 'locked_by'])
      .execute();
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
    for (const [i, mine] of results.entries()) {
      for (const d of mine) expect(rows.find((r) => r.task_id === d.taskId)?.locked_by).toBe(`w${i}`);
    }
  });

  it('never hands two claimers deliveries of the same (task, config) at once', async () => {
    await db.deleteFrom('push_deliveries').execute();
    const tasks = [];
    for (let i = 0; i < 10; i++) tasks.push(await seedPushedTask(db, secrets, 'acme', [1, 2, 3]));
    const batches = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        outbox.claimDueDeliveries({ workerId: `c${i}`, limit: 10, lockMs: 60_000 }),
      ),
    );
    const claimed = batches.flat();
    expect(claimed.every((d) => d.seq === 1)).toBe(true);
    expect(new Set(claimed.map((d) => d.taskId)).size).toBe(claimed.length);
    expect(claimed.length).toBe(10);
  });
});
