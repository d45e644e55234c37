import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import type { Database } from '../src/database.ts';
import { createDb, type Db } from '../src/db.ts';
import { PostgresOutboxStore } from '../src/outbox/index.ts';
import { replayAllDeadLetters } from '../src/outbox/replay-all-dead-letters.ts';
import { createSecretBox } from '../src/secret-box.ts';
import { seedDeliveries, seedEvents, seedPushedTask } from './outbox-fixtures.ts';

const secrets = createSecretBox('outbox-dead-test-key');
let testDb: TestDatabase;
let db: Db;
let outbox: PostgresOutboxStore;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  outbox = new PostgresOutboxStore({ db, secrets });
  const admin = new PostgresAdminStore({ db, secrets });
  await admin.createTenant({ id: 'acme', name: 'Acme' });
  await admin.createTenant({ id: 'other', name: 'Other' });
});
afterEach(async () => {
  await db.deleteFrom('push_deliveries').execute();
});
afterAll(async () => {
  await testDb.drop();
});

/** A task with `n` dead deliveries (seq 1..n) created at `createdAt`. */
async function deadTask(tenantId: string, n: number, createdAt = new Date()) {
  const seqs = Array.from({ length: n }, (_, i) => i + 1);
  const { taskId, configId } = await seedPushedTask(db, secrets, tenantId, []);
  await seedEvents(db, tenantId, taskId, seqs);
  await seedDeliveries(db, { tenantId, taskId, configId, seqs, status: 'dead', createdAt });
  return { tenantId, taskId, configId };
}

describe('dead letters', () => {
  it('listDeadLetters pages a tenant’s dead deliveries newest first, without gaps or repeats', async () => {
    // Rows sharing one created_at exercise the tie-breakers of the keyset.
    const old = await deadTask('acme', 3, new Date('2024-01-01T00:00:00.000Z'));
    const recent = await deadTask('acme', 4, new Date('2024-06-01T00:00:00.000Z'));
    await deadTask('other', 2);
    await seedPushedTask(db, secrets, 'acme', [1]);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await outbox.listDeadLetters({ tenantId: 'acme', limit: 2, cursor });
      seen.push(...page.deliveries.map((d) => d.deliveryId));
      expect(page.deliveries.every((d) => d.status === 'dead' && d.tenantId === 'acme')).toBe(true);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect(seen.slice(0, 4).every((id) => id.startsWith(recent.taskId))).toBe(true);
    expect(seen.slice(4).every((id) => id.startsWith(old.taskId))).toBe(true);
  });

  it('keeps microsecond created_at in the cursor: rows within one millisecond are not skipped', async () => {
    const { taskId, configId } = await deadTask('acme', 0);
    await seedEvents(db, 'acme', taskId, [1, 2]);
    await seedDeliveries(db, { tenantId: 'acme', taskId, configId, seqs: [1, 2], status: 'dead' });
    await db
      .updateTable('push_deliveries')
      .set({ created_at: sql<Date>`'2024-01-01T00:00:00.000100Z'::timestamptz` })
      .where('seq', '=', 1)
      .execute();
    await db
      .updateTable('push_deliveries')
      .set({ created_at: sql<Date>`'2024-01-01T00:00:00.000900Z'::timestamptz` })
      .where('seq', '=', 2)
      .execute();
    const first = await outbox.listDeadLetters({ tenantId: 'acme', limit: 1 });
    expect(first.deliveries.map((d) => d.seq)).toEqual([2]);
    const second = await outbox.listDeadLetters({
      tenantId: 'acme',
      limit: 1,
      cursor: first.nextCursor ?? '',
    });
    expect(second.deliveries.map((d) => d.seq)).toEqual([1]);
    expect(second.nextCursor).toBeNull();
  });

  it('refuses a cursor it did not make', async () => {
    await expect(
      outbox.listDeadLetters({ tenantId: 'acme', limit: 5, cursor: 'garbage' }),
    ).rejects.toBeInstanceOf(RangeError);
  });

  it('replayDeadLetter puts one dead delivery back to pending, attempt 0, due now', async () => {
    const { taskId, configId } = await deadTask('acme', 2);
    await db
      .updateTable('push_deliveries')
      .set({ attempts: 8, next_attempt_at: new Date('2030-01-01') })
      .execute();
    expect(await outbox.replayDeadLetter({ tenantId: 'acme', taskId, configId, seq: 1 })).toBe(true);
    expect(await outbox.replayDeadLetter({ tenantId: 'acme', taskId, configId, seq: 1 })).toBe(false);
    expect(await outbox.replayDeadLetter({ tenantId: 'other', taskId, configId, seq: 2 })).toBe(false);
    const rows = await outbox.listDeliveries('acme', taskId);
    expect(rows.map((r) => [r.seq, r.status, r.attempts])).toEqual([
      [1, 'pending', 0],
      [2, 'dead', 8],
    ]);
    const claimed = await outbox.claimDueDeliveries({ workerId: 'w', limit: 5, lockMs: 1000 });
    expect(claimed.map((d) => [d.taskId, d.seq, d.attempts])).toEqual([[taskId, 1, 1]]);
  });

  it('replayAllDeadLetters replays one tenant’s dead deliveries and only those', async () => {
    await deadTask('acme', 3);
    await deadTask('other', 2);
    expect(await outbox.replayAllDeadLetters('acme')).toBe(3);
    expect(await outbox.replayAllDeadLetters('acme')).toBe(0);
    expect((await outbox.listDeadLetters({ tenantId: 'other', limit: 10 })).deliveries).toHaveLength(2);
  });

  // Found in review: one UPDATE replayed the whole backlog, holding every row's lock for as long
  // as it ran, and past the statement timeout it failed having replayed nothing.
  it('replayAllDeadLetters goes through the backlog in batches, each dead letter looked at once', async () => {
    const at = new Date('2024-03-01T00:00:00.000Z');
    const a = await deadTask('acme', 3, at);
    await deadTask('acme', 4, at);
    // A dead letter whose event left the log: it stays dead, and the walk goes past it.
    await seedDeliveries(db, {
      tenantId: 'acme',
      taskId: a.taskId,
      configId: a.configId,
      seqs: [9],
      status: 'dead',
      createdAt: at,
    });
    const statements: string[] = [];
    const counted = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: testDb.pool }),
      log: (event) => void statements.push(event.query.sql.trimStart().split(/\s/)[0]!.toLowerCase()),
    });
    expect(await replayAllDeadLetters(counted, 'acme', 2)).toBe(7);
    // Eight dead letters, four full batches of two, each a select and an update of its own, then
    // a select that finds none left.
    expect(statements).toEqual([...Array<string[]>(4).fill(['select', 'update']).flat(), 'select']);
    const left = (await outbox.listDeadLetters({ tenantId: 'acme', limit: 10 })).deliveries;
    expect(left.map((d) => d.seq)).toEqual([9]);
    expect(await replayAllDeadLetters(db, 'acme', 2)).toBe(0);
  });
});

describe('timeline and metrics', () => {
  it('listDeliveries returns one task’s deliveries in seq order with their state', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', [1, 2]);
    await seedPushedTask(db, secrets, 'acme', [1]);
    await outbox.claimDueDeliveries({ workerId: 'w', limit: 1, lockMs: 1000 });
    const rows = await outbox.listDeliveries('acme', taskId);
    expect(rows.map((r) => [r.deliveryId, r.status])).toEqual([
      [`${taskId}.${configId}.1`, 'pending'],
      [`${taskId}.${configId}.2`, 'pending'],
    ]);
    expect(await outbox.listDeliveries('other', taskId)).toEqual([]);
  });

  it('countPending counts pending deliveries across tenants; oldestPendingAgeMs measures the oldest', async () => {
    expect(await outbox.countPending()).toBe(0);
    expect(await outbox.oldestPendingAgeMs()).toBe(0);
    const { taskId, configId } = await seedPushedTask(db, secrets, 'acme', [1]);
    await seedDeliveries(db, {
      tenantId: 'acme',
      taskId,
      configId,
      seqs: [2],
      createdAt: new Date(Date.now() - 3_600_000),
    });
    await seedDeliveries(db, {
      tenantId: 'acme',
      taskId,
      configId,
      seqs: [3],
      status: 'dead',
      createdAt: new Date(Date.now() - 7_200_000),
    });
    await seedPushedTask(db, secrets, 'other', [1]);
    expect(await outbox.countPending()).toBe(3);
    const age = await outbox.oldestPendingAgeMs();
    expect(age).toBeGreaterThanOrEqual(3_600_000);
    expect(age).toBeLessThan(7_200_000);
  });
});
