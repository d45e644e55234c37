import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createDb, createPool, type Db } from '../src/db.ts';
import { claimDueDeliveries } from '../src/outbox/claim-due-deliveries.ts';
import { markDelivered } from '../src/outbox/mark-delivered.ts';
import { PostgresOutboxStore, type ClaimedDelivery } from '../src/outbox/index.ts';
import { PARK_AGAIN_WITHIN_MS, PARK_FROM } from '../src/outbox/park-waiting.ts';
import { createSecretBox } from '../src/secret-box.ts';
import { expireLocks, seedPushedTask, seedTask } from './outbox-fixtures.ts';
import { rowsRead } from './rows-read.ts';

// Deliveries queued behind one of their (task, config) that is in flight or in backoff: the
// claims meanwhile neither wait for them nor read them (park-waiting.ts), and they still go out
// in seq order, each as soon as the one before it is done.

const secrets = createSecretBox('outbox-waiting-behind-key');
let testDb: TestDatabase;
let db: Db;
let outbox: PostgresOutboxStore;

beforeAll(async () => {
  testDb = await createTestDatabase();
  testDb.pool.on('error', () => {});
  db = createDb(testDb.pool);
  outbox = new PostgresOutboxStore({ db, secrets });
  const admin = new PostgresAdminStore({ db, secrets });
  for (const id of ['acme', 'other']) await admin.createTenant({ id, name: id });
});
afterEach(async () => {
  await db.deleteFrom('push_deliveries').execute();
});
afterAll(async () => {
  await testDb.drop();
});

/**
 * A task of `tenantId` with one webhook and a pending delivery (and its event) for each seq from 1
 * to `count`, all due; its version is `count`, as a task's last event's seq is.
 */
async function queuedTask(tenantId: string, count: number, dead: number[] = []): Promise<string> {
  const taskId = await seedTask(db, { tenantId });
  await sql`UPDATE tasks SET version = ${count} WHERE tenant_id = ${tenantId} AND id = ${taskId}::uuid`.execute(
    db,
  );
  await sql`INSERT INTO push_configs (tenant_id, task_id, id, url)
            VALUES (${tenantId}, ${taskId}::uuid, 'hook', 'https://hooks.example.com/a2a')`.execute(db);
  await sql`
    INSERT INTO task_events (tenant_id, task_id, seq, kind, payload)
    SELECT ${tenantId}, ${taskId}::uuid, g, 'statusUpdate', jsonb_build_object('statusUpdate', jsonb_build_object('seq', g))
      FROM generate_series(1, ${count}::int) AS g`.execute(db);
  await sql`
    INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq, status, next_attempt_at)
    SELECT ${tenantId}, ${taskId}::uuid, 'hook', g, CASE WHEN g = ANY(${dead}::int[]) THEN 'dead' ELSE 'pending' END,
           now() - interval '1 minute' + g * interval '1 millisecond'
      FROM generate_series(1, ${count}::int) AS g`.execute(db);
  return taskId;
}

/** Appends `count` events (and their deliveries, due) to a queued task, as events arriving later. */
async function arrive(tenantId: string, taskId: string, from: number, count: number): Promise<void> {
  const to = from + count - 1;
  await sql`UPDATE tasks SET version = ${to} WHERE tenant_id = ${tenantId} AND id = ${taskId}::uuid`.execute(
    db,
  );
  await sql`
    INSERT INTO task_events (tenant_id, task_id, seq, kind, payload)
    SELECT ${tenantId}, ${taskId}::uuid, g, 'statusUpdate', '{"statusUpdate":{}}'::jsonb
      FROM generate_series(${from}::int, ${to}::int) AS g`.execute(db);
  await sql`
    INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq)
    SELECT ${tenantId}, ${taskId}::uuid, 'hook', g FROM generate_series(${from}::int, ${to}::int) AS g`.execute(
    db,
  );
}

/** The seqs of the task's pending deliveries that are due now (a claim could read them). */
async function dueSeqs(tenantId: string, taskId: string): Promise<number[]> {
  const { rows } = await sql<{ seq: number }>`
    SELECT seq FROM push_deliveries
     WHERE tenant_id = ${tenantId} AND task_id = ${taskId}::uuid AND status = 'pending'
       AND next_attempt_at <= now() ORDER BY seq`.execute(db);
  return rows.map((r) => r.seq);
}

const claim = (workerId: string, limit = 16) =>
  outbox.claimDueDeliveries({ workerId, limit, lockMs: 60_000 });
const keys = (ds: ClaimedDelivery[], busy: string) =>
  ds.map((d) => `${d.tenantId}/${d.taskId === busy ? 'busy' : 'other'}/${d.seq}`);
const delivered = (d: ClaimedDelivery, workerId: string) =>
  outbox.markDelivered({ ...d, workerId, status: 204 }).then((ok) => expect(ok).toBe(true));

describe('deliveries queued behind one in flight', () => {
  it('leave every other due delivery to the claims, and go out in order, each once the one before is done', async () => {
    const busy = await queuedTask('acme', 3_000);
    const [head] = await claim('p1', 1);
    expect(head).toMatchObject({ taskId: busy, seq: 1 });
    // Other tasks' deliveries come due while the head is in flight: the tenant's own and another's.
    for (const tenantId of ['acme', 'acme', 'acme', 'other', 'other']) {
      await seedPushedTask(db, secrets, tenantId, [1]);
    }
    const others = await claim('p2');
    expect(keys(others, busy).sort()).toEqual([
      'acme/other/1',
      'acme/other/1',
      'acme/other/1',
      'other/other/1',
      'other/other/1',
    ]);
    expect(await claim('p3')).toEqual([]);
    // Each delivery of the queue is claimable as soon as the one before it is delivered, not before.
    let current = head!;
    for (let seq = 2; seq <= 25; seq++) {
      await delivered(current, 'p1');
      const next = await claim('p1');
      expect(keys(next, busy)).toEqual([`acme/busy/${seq}`]);
      expect(next[0]!.attempts).toBe(1);
      expect(await claim('p3')).toEqual([]);
      current = next[0]!;
    }
    // Dead-lettered, the same: the next one goes.
    expect(
      await outbox.markFailed({ ...current, workerId: 'p1', error: 'HTTP 410', status: 410, dead: true }),
    ).toBe(true);
    const afterDead = await claim('p1');
    expect(keys(afterDead, busy)).toEqual(['acme/busy/26']);
    // In backoff, the same: nothing of the queue meanwhile, then the retry, then the next.
    await outbox.markFailed({
      ...afterDead[0]!,
      workerId: 'p1',
      error: 'HTTP 503',
      retryInMs: -1,
    });
    const retried = await claim('p1');
    expect(retried.map((d) => [d.seq, d.attempts])).toEqual([[26, 2]]);
    await delivered(retried[0]!, 'p1');
    expect(keys(await claim('p1'), busy)).toEqual(['acme/busy/27']);
  });

  it('are not due while it is in flight, and what arrives meanwhile is parked by the next claim', async () => {
    const busy = await queuedTask('acme', 200);
    const [head] = await claim('p1', 1);
    expect(await dueSeqs('acme', busy)).toEqual([1]);
    // Events keep coming while the head is in flight: due until the config's next claim.
    await arrive('acme', busy, 201, PARK_FROM + 4);
    await delivered(head!, 'p1');
    const [second] = await claim('p1');
    expect(second).toMatchObject({ taskId: busy, seq: 2 });
    expect(await dueSeqs('acme', busy)).toEqual([2]);
    // A lock that lapsed is retried, still first.
    await expireLocks(db, 'acme', busy);
    expect((await claim('p2')).map((d) => [d.seq, d.attempts])).toEqual([[2, 2]]);
  });

  it('are parked again when their parking is old, and a short queue is not parked', async () => {
    const busy = await queuedTask('acme', 100);
    const [head] = await claim('p1', 1);
    // Minutes later, say: the parked ones would come due soon.
    await sql`UPDATE push_deliveries SET next_attempt_at = now() + interval '2 minutes'
               WHERE tenant_id = 'acme' AND task_id = ${busy}::uuid AND seq > 1`.execute(db);
    await delivered(head!, 'p1');
    await claim('p1');
    const { rows } = await sql<{ soonest: Date }>`
      SELECT min(next_attempt_at) AS soonest FROM push_deliveries
       WHERE tenant_id = 'acme' AND task_id = ${busy}::uuid AND seq > 2`.execute(db);
    expect(rows[0]!.soonest.getTime()).toBeGreaterThan(Date.now() + PARK_AGAIN_WITHIN_MS);

    const short = await queuedTask('other', PARK_FROM - 1);
    await claim('p3');
    expect(await dueSeqs('other', short)).toEqual(Array.from({ length: PARK_FROM - 1 }, (_, i) => i + 1));
  });

  it('go out in order past deliveries that are no longer pending (a replayed dead letter)', async () => {
    // 18 and 19 died; the rest was queued when 1 to 17 were replayed, say.
    const busy = await queuedTask('acme', 60, [18, 19]);
    let [current] = await claim('p1', 1);
    expect(await dueSeqs('acme', busy)).toEqual([1]);
    const order: number[] = [current!.seq];
    for (let k = 0; k < 20; k++) {
      await delivered(current!, 'p1');
      const next = await claim('p1');
      expect(next).toHaveLength(1);
      current = next[0];
      order.push(current!.seq);
    }
    expect(order).toEqual([...Array.from({ length: 17 }, (_, i) => i + 1), 20, 21, 22, 23]);
  });

  it('without their release (a pusher of the release before this one) go out in order when their parking ends', async () => {
    const busy = await queuedTask('acme', 100);
    const [head] = await claim('p1', 1);
    // The older pusher's mark: delivered, nothing released.
    await sql`UPDATE push_deliveries SET status = 'delivered', delivered_at = now(), locked_by = NULL, locked_until = NULL
               WHERE tenant_id = 'acme' AND task_id = ${busy}::uuid AND seq = ${head!.seq}`.execute(db);
    expect(await claim('p1')).toEqual([]);
    // Ten minutes later, say: all of them are due again at once, and still go one at a time.
    await sql`UPDATE push_deliveries SET next_attempt_at = now() - interval '1 second'
               WHERE tenant_id = 'acme' AND task_id = ${busy}::uuid AND status = 'pending'`.execute(db);
    const [second] = await claim('p1');
    expect(second).toMatchObject({ taskId: busy, seq: 2 });
    expect(await claim('p2')).toEqual([]);
    await delivered(second!, 'p1');
    expect((await claim('p1')).map((d) => d.seq)).toEqual([3]);
  });

  it('go out once the one before is buried as an orphan', async () => {
    const busy = await queuedTask('acme', 50);
    await claim('p1', 1);
    // Its event goes from the log while its claim lapses: the next claim buries it.
    await sql`DELETE FROM task_events WHERE tenant_id = 'acme' AND task_id = ${busy}::uuid AND seq = 1`.execute(
      db,
    );
    await expireLocks(db, 'acme', busy);
    expect(await claim('p2')).toEqual([]);
    expect((await claim('p2')).map((d) => d.seq)).toEqual([2]);
  });
});

describe('the claims while a delivery is in flight', () => {
  it('read none of the deliveries queued behind it, with stale statistics and generic plans', async () => {
    // One connection, so the claim runs with the generic plan it is named with (rows-read.ts).
    const one = createDb(createPool({ connectionString: testDb.url, maxConnections: 1 }));
    try {
      // History as the table upkeep leaves its statistics: many tasks' deliveries, all delivered.
      await sql`
        INSERT INTO push_configs (tenant_id, task_id, id, url)
        SELECT 'acme', md5('history' || g)::uuid, 'hook', 'https://hooks.example/a2a' FROM generate_series(1, 2000) AS g`.execute(
        db,
      );
      await sql`
        INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq, status, delivered_at)
        SELECT 'acme', md5('history' || g)::uuid, 'hook', s, 'delivered', now()
          FROM generate_series(1, 2000) AS g, generate_series(1, 10) AS s`.execute(db);
      await sql`ANALYZE`.execute(db);
      // Then a task streams 3,000 events to a slow receiver: the first is in flight.
      const busy = await queuedTask('acme', 3_000);
      const claimOf = (d: Db, workerId: string) =>
        claimDueDeliveries(d, secrets, { workerId, limit: 16, lockMs: 60_000 });
      expect((await claimOf(one, 'p1')).map((d) => [d.taskId, d.seq])).toEqual([[busy, 1]]);
      for (let k = 0; k < 2; k++) expect(await claimOf(one, 'p2')).toEqual([]);
      let claimed: ClaimedDelivery[] = [];
      const read = await rowsRead(one, 'push_deliveries', async (trx) => {
        claimed = await claimOf(trx, 'p2');
      });
      expect(claimed).toEqual([]);
      expect(read).toBeLessThan(50);
      await sql`DELETE FROM push_deliveries WHERE tenant_id = 'acme'`.execute(db);
    } finally {
      await one.destroy();
    }
  });
});

describe('two deliveries of one config marked in one statement', () => {
  it('are both marked, the later one parked or not (one statement updates a row once)', async () => {
    // A replayed dead letter (1) and the delivery after it (2) in flight together, 2 parked
    // (the replay's claim parked what waited behind it): both sends end, and the pusher marks
    // them in one batch, whose release of 1's next is 2 itself.
    const taskId = await queuedTask('acme', 2);
    await sql`UPDATE push_deliveries SET locked_by = 'p1', locked_until = now() + interval '1 minute'
               WHERE task_id = ${taskId}::uuid`.execute(db);
    await sql`UPDATE push_deliveries SET next_attempt_at = now() + interval '10 minutes'
               WHERE task_id = ${taskId}::uuid AND seq = 2`.execute(db);
    const marks = [1, 2].map((seq) => ({
      tenantId: 'acme',
      taskId,
      configId: 'hook',
      seq,
      workerId: 'p1',
      status: 204,
    }));
    expect(await markDelivered(db, marks)).toEqual([true, true]);
    const { rows } = await sql<{ seq: number; status: string }>`
      SELECT seq, status FROM push_deliveries WHERE task_id = ${taskId}::uuid ORDER BY seq`.execute(db);
    expect(rows).toEqual([
      { seq: 1, status: 'delivered' },
      { seq: 2, status: 'delivered' },
    ]);
  });
});
