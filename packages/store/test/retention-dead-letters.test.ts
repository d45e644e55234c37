import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createDb, type Db } from '../src/db.ts';
import { PostgresOutboxStore } from '../src/outbox/index.ts';
import { runRetention } from '../src/retention/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import {
  eventPayload,
  seedDeliveries,
  seedEvents,
  seedPushConfig,
  seedTask,
  TERMINAL,
} from './outbox-fixtures.ts';

// run-retention.ts: dead letters can be replayed until their task is deleted (30 days), but the
// event log of a terminal task goes after a day. A replay is sent from the log, so retention keeps
// the events of dead deliveries; otherwise the replay would be buried again and the push lost.
const DAY = 24 * 3_600_000;
const secrets = createSecretBox('retention-dead-letters-key');
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

const eventSeqs = async (taskId: string) =>
  (
    await db.selectFrom('task_events').select('seq').where('task_id', '=', taskId).orderBy('seq').execute()
  ).map((r) => r.seq);

describe('retention and dead letters', () => {
  it('a dead letter replayed after the event TTL is sent with its event; once delivered, the event expires', async () => {
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    const taskId = await seedTask(db, { tenantId: 'acme', state: TERMINAL, updatedAt: twoDaysAgo });
    await seedEvents(db, 'acme', taskId, [1, 2, 3], twoDaysAgo);
    const configId = await seedPushConfig(db, secrets, { tenantId: 'acme', taskId });
    await seedDeliveries(db, { tenantId: 'acme', taskId, configId, seqs: [1, 3], status: 'delivered' });
    await seedDeliveries(db, { tenantId: 'acme', taskId, configId, seqs: [2], status: 'dead' });

    // The database's clock and the default TTLs: the log is a day past its 24 hours.
    await runRetention(db);
    expect(await eventSeqs(taskId)).toEqual([2]);

    expect(await outbox.replayDeadLetter({ tenantId: 'acme', taskId, configId, seq: 2 })).toBe(true);
    const claimed = await outbox.claimDueDeliveries({ workerId: 'w', limit: 5, lockMs: 60_000 });
    expect(claimed.map((d) => [d.taskId, d.seq, d.payload])).toEqual([[taskId, 2, eventPayload(taskId, 2)]]);
    // Still pending under the claim, not buried as an orphan.
    expect((await outbox.listDeliveries('acme', taskId)).map((d) => [d.seq, d.status])).toEqual([
      [1, 'delivered'],
      [2, 'pending'],
      [3, 'delivered'],
    ]);

    expect(
      await outbox.markDelivered({ tenantId: 'acme', taskId, configId, seq: 2, workerId: 'w', status: 200 }),
    ).toBe(true);
    await runRetention(db);
    expect(await eventSeqs(taskId)).toEqual([]);
  });

  it('a dead letter whose event is already gone is not replayed, one by one or all at once', async () => {
    // Pruned before retention kept dead letters' events: the delivery cannot be sent any more.
    const taskId = await seedTask(db, { tenantId: 'acme', state: TERMINAL });
    const configId = await seedPushConfig(db, secrets, { tenantId: 'acme', taskId });
    await seedEvents(db, 'acme', taskId, [3], new Date());
    await seedDeliveries(db, { tenantId: 'acme', taskId, configId, seqs: [2, 3], status: 'dead' });
    expect(await outbox.replayDeadLetter({ tenantId: 'acme', taskId, configId, seq: 2 })).toBe(false);
    expect(await outbox.replayAllDeadLetters('acme')).toBe(1);
    expect((await outbox.listDeliveries('acme', taskId)).map((d) => [d.seq, d.status])).toEqual([
      [2, 'dead'],
      [3, 'pending'],
    ]);
  });
});
