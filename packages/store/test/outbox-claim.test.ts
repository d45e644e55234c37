import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createDb, type Db } from '../src/db.ts';
import { PostgresOutboxStore, type ClaimObserver } from '../src/outbox/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import { eventPayload, expireLocks, seedDeliveries, seedEvents, seedPushedTask } from './outbox-fixtures.ts';

const secrets = createSecretBox('outbox-claim-test-key');
let testDb: TestDatabase;
let db: Db;
let outbox: PostgresOutboxStore;
let webhookSecret: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  outbox = new PostgresOutboxStore({ db, secrets });
  ({ webhookSecret } = await new PostgresAdminStore({ db, secrets }).createTenant({
    id: 'acme',
    name: 'Acme',
  }));
});
afterEach(async () => {
  await db.deleteFrom('push_deliveries').execute();
});
afterAll(async () => {
  await testDb.drop();
});

const claim = (workerId = 'w1', limit = 10, lockMs = 30_000, observer?: ClaimObserver) =>
  outbox.claimDueDeliveries({ workerId, limit, lockMs, ...(observer ? { observer } : {}) });

/** Records what a claim tells its observer. */
function recordingObserver() {
  const dead: Array<{ taskId: string; seq: number; reason: string }> = [];
  const failed: string[] = [];
  const observer: ClaimObserver = {
    deadLettered: (key, reason) => dead.push({ taskId: key.taskId, seq: key.seq, reason }),
    followUpFailed: (step) => failed.push(step),
  };
  return { observer, dead, failed };
}

describe('claimDueDeliveries', () => {
  it('returns the event payload, the decrypted push config and the tenant signing secret', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', [1], {
      url: 'https://hooks.example.com/x',
      token: 'tok-123',
      authentication: { scheme: 'Bearer', credentials: 'cred-456' },
    });
    const [d, ...rest] = await claim();
    expect(rest).toEqual([]);
    expect(d).toEqual({
      tenantId: 'acme',
      taskId,
      configId,
      seq: 1,
      attempts: 1,
      deliveryId: `${taskId}.${configId}.1`,
      payload: eventPayload(taskId, 1),
      config: {
        url: 'https://hooks.example.com/x',
        token: 'tok-123',
        authentication: { scheme: 'Bearer', credentials: 'cred-456' },
      },
      receiverHost: 'hooks.example.com',
      webhookSecret,
    });
  });

  it('omits token and authentication when the config has none', async () => {
    await seedPushedTask(db, secrets, 'acme', [1]);
    const [d] = await claim();
    expect(d?.config).toEqual({ url: 'https://hooks.example.com/a2a' });
  });

  it('stamps the lock and counts the attempt', async () => {
    const { taskId } = await seedPushedTask(db, secrets, 'acme', [1]);
    await claim('w-lock');
    const [row] = await outbox.listDeliveries('acme', taskId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lockedBy: 'w-lock' });
    expect(row?.lockedUntil?.getTime()).toBeGreaterThan(Date.now());
  });

  it('a locked delivery is not claimed again until its lock lapses; the deliveryId stays the same on retry', async () => {
    const { taskId } = await seedPushedTask(db, secrets, 'acme', [1]);
    const [first] = await claim('w1');
    expect(await claim('w2')).toEqual([]);
    await expireLocks(db, 'acme', taskId);
    const [second] = await claim('w2');
    expect(second).toMatchObject({ attempts: 2, deliveryId: first?.deliveryId });
  });

  it('a delivery whose next_attempt_at is in the future is not due', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', []);
    await seedDeliveries(db, {
      tenantId: 'acme',
      taskId,
      configId,
      seqs: [1],
      nextAttemptAt: new Date(Date.now() + 60_000),
    });
    expect(await claim()).toEqual([]);
  });

  it('delivered and dead deliveries are never claimed', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', []);
    await seedDeliveries(db, { tenantId: 'acme', taskId, configId, seqs: [1], status: 'delivered' });
    await seedDeliveries(db, { tenantId: 'acme', taskId, configId, seqs: [2], status: 'dead' });
    expect(await claim()).toEqual([]);
  });

  it('claims at most `limit` deliveries, the longest due first', async () => {
    const dueAgo = [5, 1, 4, 2, 3];
    const byAge = new Map<string, number>();
    for (const seconds of dueAgo) {
      const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', []);
      await seedEvents(db, 'acme', taskId, [1]);
      await seedDeliveries(db, {
        tenantId: 'acme',
        taskId,
        configId,
        seqs: [1],
        nextAttemptAt: new Date(Date.now() - seconds * 1000),
      });
      byAge.set(taskId, seconds);
    }
    const first = await claim('w1', 3);
    expect(first.map((d) => byAge.get(d.taskId)).sort()).toEqual([3, 4, 5]);
    expect((await claim('w2', 10)).map((d) => byAge.get(d.taskId)).sort()).toEqual([1, 2]);
  });

  it('a delivery whose event left the log is dead-lettered instead of claimed forever', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', [1]);
    await seedDeliveries(db, { tenantId: 'acme', taskId, configId, seqs: [7] });
    expect((await claim()).map((d) => d.seq)).toEqual([1]);
    await outbox.markDelivered({ tenantId: 'acme', taskId, configId, seq: 1, workerId: 'w1', status: 204 });
    const told = recordingObserver();
    expect(await claim('w1', 10, 30_000, told.observer)).toEqual([]);
    // The caller hears of it: the pusher logs it and counts a dead letter.
    expect(told.dead).toEqual([{ taskId, seq: 7, reason: expect.stringContaining('no longer') }]);
    const rows = await outbox.listDeliveries('acme', taskId);
    expect(rows.find((r) => r.seq === 7)).toMatchObject({
      status: 'dead',
      lockedBy: null,
      lastError: expect.stringContaining('no longer'),
    });
  });

  it('a delivery sealed with another secret key is dead-lettered, and the rest of the batch is still claimed', async () => {
    const otherKey = createSecretBox('a-different-secret-key');
    const { taskId: good } = await seedPushedTask(db, secrets, 'acme', [1]);
    const { taskId: bad } = await seedPushedTask(db, otherKey, 'acme', [1], { token: 'sealed-elsewhere' });
    const told = recordingObserver();
    const claimed = await claim('w1', 10, 30_000, told.observer);
    expect(claimed.map((d) => d.taskId)).toEqual([good]);
    const rows = await outbox.listDeliveries('acme', bad);
    expect(rows[0]).toMatchObject({ status: 'dead', lastError: expect.stringContaining('cannot decrypt') });
    expect(told.dead).toEqual([
      { taskId: bad, seq: 1, reason: expect.stringContaining('SWITCHYARD_SECRET_KEY') },
    ]);
  });

  it('a dead-letter that fails after the claim committed does not throw the claimed batch away', async () => {
    const otherKey = createSecretBox('a-different-secret-key');
    const { taskId: good } = await seedPushedTask(db, secrets, 'acme', [1]);
    const { taskId: bad } = await seedPushedTask(db, otherKey, 'acme', [1], { token: 'sealed-elsewhere' });
    // As if Postgres failed the statement that dead-letters the row it cannot decrypt.
    await sql`CREATE FUNCTION refuse_dead() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.status = 'dead' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`.execute(
      db,
    );
    await sql`CREATE TRIGGER refuse_dead BEFORE UPDATE ON push_deliveries
      FOR EACH ROW EXECUTE FUNCTION refuse_dead()`.execute(db);
    const told = recordingObserver();
    try {
      expect((await claim('w1', 10, 30_000, told.observer)).map((d) => d.taskId)).toEqual([good]);
      // Not thrown, but not silent either: the caller is told which step failed.
      expect(told).toMatchObject({ dead: [], failed: ['dead-letter undecryptable'] });
    } finally {
      await sql`DROP TRIGGER refuse_dead ON push_deliveries`.execute(db);
      await sql`DROP FUNCTION refuse_dead()`.execute(db);
    }
    // Still claimed by this pusher: it lapses, and a later claim dead-letters it.
    expect((await outbox.listDeliveries('acme', bad))[0]).toMatchObject({
      status: 'pending',
      lockedBy: 'w1',
    });
  });
});
