import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { createDb, createPool, type Db } from '../src/db.ts';
import { claimDueDeliveries } from '../src/outbox/claim-due-deliveries.ts';
import { markDelivered } from '../src/outbox/mark-delivered.ts';
import { markFailed } from '../src/outbox/mark-failed.ts';
import { deleteDeliveredPushes } from '../src/retention/delete-delivered-pushes.ts';
import { deleteExpiredContextMemory } from '../src/retention/delete-expired-context-memory.ts';
import { deleteExpiredIdempotencyKeys } from '../src/retention/delete-expired-idempotency-keys.ts';
import { seedEvents, seedPushConfig, seedTask } from './outbox-fixtures.ts';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import { rowsRead } from './rows-read.ts';
import { tenant } from './task-fixtures.ts';

// Like task-bounded-reads.test.ts for the outbox and the retention: each statement reads the rows
// it acts on, not every pending delivery or every row of its table, under the generic plans every
// platform connection uses (prepared-statements.ts).

let testDb: TestDatabase;
/** One connection, so statements named on their second use run with their generic plans. */
let db: Db;
let seed: Db;
beforeAll(async () => {
  testDb = await createTestDatabase();
  testDb.pool.on('error', () => {});
  seed = createDb(testDb.pool);
  db = createDb(createPool({ connectionString: testDb.url, maxConnections: 1 }));
});
afterAll(async () => {
  await db.destroy();
  await testDb.drop();
});

/** A task with one webhook, and `count` deliveries of `status` from seq `from` on. */
async function deliveries(tenantId: string, taskId: string, from: number, count: number, status: string) {
  await sql`
    INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq, status, next_attempt_at, delivered_at)
    SELECT ${tenantId}, ${taskId}::uuid, 'hook', g, ${status}, now() - interval '1 second',
           CASE WHEN ${status} = 'delivered' THEN now() - interval '30 days' END
      FROM generate_series(${from}::int, ${from + count - 1}::int) AS g`.execute(seed);
}

const secrets = createSecretBox('outbox-bounded-reads-key-0123');

describe('bounded reads of the outbox and the retention', () => {
  it('a claim reads the deliveries it takes, not those waiting behind a receiver that is down', async () => {
    const tenantId = tenant();
    // Claims join the tenant's signing secret.
    await new PostgresAdminStore({ db: seed, secrets }).createTenant({ id: tenantId, name: tenantId });
    // History: 2,000 tasks with a webhook each, ten events each delivered.
    await sql`
      INSERT INTO push_configs (tenant_id, task_id, id, url)
      SELECT ${tenantId}, md5(${tenantId} || g)::uuid, 'hook', 'https://hooks.example/a2a'
        FROM generate_series(1, 2000) AS g`.execute(seed);
    await sql`
      INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq, status, delivered_at)
      SELECT ${tenantId}, md5(${tenantId} || g)::uuid, 'hook', s, 'delivered', now()
        FROM generate_series(1, 2000) AS g, generate_series(1, 10) AS s`.execute(seed);
    const taskOf = async (g: number) =>
      (await sql<{ id: string }>`SELECT md5(${tenantId} || ${g}::int)::uuid::text AS id`.execute(seed))
        .rows[0]!.id;
    // Statistics as the table upkeep leaves them, before the receiver went down.
    await sql`ANALYZE`.execute(seed);
    // Task 1's receiver is down: seq 11 is in flight (claimed by p1), 3,000 later events wait.
    const down = await taskOf(1);
    await deliveries(tenantId, down, 11, 3_001, 'pending');
    await sql`UPDATE push_deliveries SET locked_by = 'p1', locked_until = now() + interval '1 minute'
               WHERE tenant_id = ${tenantId} AND task_id = ${down}::uuid AND seq = 11`.execute(seed);
    const failed = await markFailed(seed, {
      tenantId,
      taskId: down,
      configId: 'hook',
      seq: 11,
      workerId: 'p1',
      error: 'HTTP 503',
      retryInMs: 3_600_000,
    });
    expect(failed).toBe(true);
    // Other tasks' receivers are fine: one due delivery each, with its event.
    for (let g = 2; g < 14; g++) {
      const taskId = await taskOf(g);
      await deliveries(tenantId, taskId, 11, 1, 'pending');
      await seedEvents(seed, tenantId, taskId, [11]);
    }
    const claim = (d: Db) => claimDueDeliveries(d, secrets, { workerId: 'p2', limit: 4, lockMs: 60_000 });
    for (let k = 0; k < 2; k++) expect(await claim(db)).toHaveLength(4);
    let claimed = 0;
    const read = await rowsRead(db, 'push_deliveries', async (trx) => {
      claimed = (await claim(trx)).length;
    });
    expect(claimed).toBe(4);
    expect(read).toBeLessThan(50);
  });

  it('a claim reads nothing of the due backlog of a tenant at its share', async () => {
    const [busy, other] = [tenant(), tenant()];
    for (const id of [busy, other]) {
      await new PostgresAdminStore({ db: seed, secrets }).createTenant({ id, name: id });
    }
    // History as the table upkeep leaves its statistics: delivered pushes, nothing pending. (With
    // statistics taken on an empty table the planner may sort the due deliveries instead of
    // merging the partitions' indexes: a claim then reads what is due, never what is in backoff.)
    await sql`
      INSERT INTO push_configs (tenant_id, task_id, id, url)
      SELECT 'history-' || (g % 64), md5('history' || g)::uuid, 'hook', 'https://hooks.example/a2a'
        FROM generate_series(1, 2000) AS g`.execute(seed);
    await sql`
      INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq, status, delivered_at)
      SELECT 'history-' || (g % 64), md5('history' || g)::uuid, 'hook', s, 'delivered', now()
        FROM generate_series(1, 2000) AS g, generate_series(1, 10) AS s`.execute(seed);
    await sql`ANALYZE`.execute(seed);
    // Then a backlog: 3,000 deliveries of one tenant due for an hour, whose slow receiver holds
    // every slot the tenant may have; another tenant's deliveries due since a second.
    await sql`
      INSERT INTO push_configs (tenant_id, task_id, id, url)
      SELECT ${busy}, md5(${busy} || g)::uuid, 'hook', 'https://slow.example/a2a'
        FROM generate_series(1, 3000) AS g`.execute(seed);
    await sql`
      INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq, status, next_attempt_at)
      SELECT ${busy}, md5(${busy} || g)::uuid, 'hook', 1, 'pending', now() - interval '1 hour'
        FROM generate_series(1, 3000) AS g`.execute(seed);
    for (let g = 0; g < 4; g++) {
      const taskId = await seedTask(seed, { tenantId: other });
      await seedPushConfig(seed, secrets, { tenantId: other, taskId });
      await seedEvents(seed, other, taskId, [1]);
      await deliveries(other, taskId, 1, 1, 'pending');
    }
    const shares = {
      perTenant: 4,
      inFlightByTenant: new Map([[busy, 4]]),
      perHost: 4,
      inFlightByHost: new Map([['slow.example', 4]]),
    };
    const claim = (d: Db) =>
      claimDueDeliveries(d, secrets, { workerId: 'p3', limit: 4, lockMs: 60_000, shares });
    const unlock = () =>
      sql`UPDATE push_deliveries SET locked_by = NULL, locked_until = NULL
           WHERE tenant_id = ${other}`.execute(seed);
    for (let k = 0; k < 2; k++) {
      expect((await claim(db)).map((c) => c.tenantId)).toEqual([other, other, other, other]);
      await unlock();
    }
    let claimed: string[] = [];
    const read = await rowsRead(db, 'push_deliveries', async (trx) => {
      claimed = (await claim(trx)).map((c) => c.tenantId);
    });
    expect(claimed).toEqual([other, other, other, other]);
    expect(read).toBeLessThan(50);
  });

  it('a delivered mark reads its own delivery, not the partition’s pending ones', async () => {
    const tenantId = tenant();
    const taskId = await seedTask(seed, { tenantId });
    await seedPushConfig(seed, secrets, { tenantId, taskId });
    await deliveries(tenantId, taskId, 1, 20_000, 'delivered');
    await sql`ANALYZE push_deliveries`.execute(seed);
    // A webhook that fell behind: thousands pending, which the statistics do not know of.
    await deliveries(tenantId, taskId, 20_001, 3_000, 'pending');
    await sql`UPDATE push_deliveries SET locked_by = 'p1' WHERE tenant_id = ${tenantId} AND seq > 20000`.execute(
      seed,
    );
    const mark = (d: Db, seq: number) =>
      markDelivered(d, [{ tenantId, taskId, configId: 'hook', seq, workerId: 'p1', status: 204 }]);
    for (const seq of [20_001, 20_002]) expect(await mark(db, seq)).toEqual([true]);
    let marked: boolean[] = [];
    const read = await rowsRead(db, 'push_deliveries', async (trx) => {
      marked = await mark(trx, 20_003);
    });
    expect(marked).toEqual([true]);
    expect(read).toBeLessThan(10);
  });

  it('retention batches read their batch, not the whole table', async () => {
    const tenantId = tenant();
    await sql`
      INSERT INTO idempotency_keys (tenant_id, message_id, principal, task_id, created_at)
      SELECT ${tenantId}, 'm' || g, 'alice', gen_random_uuid(),
             CASE WHEN g <= 1000 THEN now() - interval '30 days' ELSE now() END
        FROM generate_series(1, 20000) AS g`.execute(seed);
    await sql`
      INSERT INTO context_memory (tenant_id, agent_id, owner, context_id, key, value, updated_at)
      SELECT ${tenantId}, 'echo', 'alice', 'c' || g, 'k', '1',
             CASE WHEN g <= 1000 THEN now() - interval '30 days' ELSE now() END
        FROM generate_series(1, 20000) AS g`.execute(seed);
    const taskId = await seedTask(seed, { tenantId });
    await seedPushConfig(seed, secrets, { tenantId, taskId });
    await deliveries(tenantId, taskId, 1, 5_000, 'delivered');
    await sql`ANALYZE`.execute(seed);
    const cutoff = new Date(Date.now() - 86_400_000);
    const batches: Array<[string, (d: Db) => Promise<number>]> = [
      ['idempotency_keys', (d) => deleteExpiredIdempotencyKeys(d, cutoff, 100)],
      ['context_memory', (d) => deleteExpiredContextMemory(d, cutoff, 100)],
      ['push_deliveries', (d) => deleteDeliveredPushes(d, cutoff, 100)],
    ];
    for (const [table, batch] of batches) {
      for (let k = 0; k < 2; k++) expect(await batch(db)).toBe(100);
      let deleted = 0;
      const read = await rowsRead(db, table, async (trx) => {
        deleted = await batch(trx);
      });
      expect(deleted).toBe(100);
      // The batch read by the age index, then deleted by primary key: about two reads a row.
      expect({ table, read: read < 400 }).toEqual({ table, read: true });
    }
  });
});
