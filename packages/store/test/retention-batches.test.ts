import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../src/database.ts';
import { createDb, type Db } from '../src/db.ts';
import { runRetention } from '../src/retention/index.ts';
import { seedEvents, seedTask, TERMINAL } from './outbox-fixtures.ts';

// ARCHITECTURE.md §8: retention is "bounded batched deletes … never a table-wide lock".
const DAY = 24 * 3_600_000;
let testDb: TestDatabase;
let db: Db;
let statements: string[];
/** The same database, recording every statement retention sends. */
let recorded: Db;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  recorded = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: testDb.pool }),
    log: (event) => {
      if (event.level === 'query') statements.push(event.query.sql);
    },
  });
});
beforeEach(async () => {
  statements = [];
  await db.deleteFrom('task_events').execute();
  await db.deleteFrom('tasks').execute();
  await db.deleteFrom('idempotency_keys').execute();
});
afterAll(async () => {
  await testDb.drop();
});

describe('retention runs in bounded batches', () => {
  it('deletes expired tasks batchSize at a time until a batch comes back short', async () => {
    const now = new Date();
    for (let i = 0; i < 5; i++)
      await seedTask(db, {
        tenantId: 'acme',
        state: TERMINAL,
        updatedAt: new Date(now.getTime() - 31 * DAY),
      });
    const result = await runRetention(recorded, { now, batchSize: 2 });
    expect(result.tasks).toBe(5);
    expect(await db.selectFrom('tasks').select('id').execute()).toEqual([]);
    // 2 + 2 + 1: the third batch is short, so no fourth is attempted.
    expect(
      statements.filter((s) => /^select .* from "tasks" .* limit \$\d+ for update skip locked$/.test(s)),
    ).toHaveLength(3);
  });

  it('deletes expired events and idempotency keys batchSize at a time', async () => {
    const now = new Date();
    const taskId = await seedTask(db, {
      tenantId: 'acme',
      state: TERMINAL,
      updatedAt: new Date(now.getTime() - 2 * DAY),
    });
    await seedEvents(db, 'acme', taskId, [1, 2, 3, 4, 5, 6, 7], new Date(now.getTime() - 2 * DAY));
    for (let i = 0; i < 4; i++) {
      await db
        .insertInto('idempotency_keys')
        .values({
          tenant_id: 'acme',
          message_id: `m${i}`,
          principal: 'p',
          task_id: taskId,
          created_at: new Date(now.getTime() - 2 * DAY),
        })
        .execute();
    }
    const result = await runRetention(recorded, { now, batchSize: 3 });
    expect(result).toMatchObject({ tasks: 0, taskEvents: 7, idempotencyKeys: 4 });
    expect(statements.filter((s) => s.startsWith('delete from "task_events"'))).toHaveLength(3);
    expect(statements.filter((s) => s.startsWith('delete from "idempotency_keys"'))).toHaveLength(2);
  });

  it('never sends an unbounded delete: each one is limited or keyed to one batch of tasks', async () => {
    await runRetention(recorded, { batchSize: 10 });
    const deletes = statements.filter((s) => s.startsWith('delete'));
    expect(deletes.length).toBeGreaterThan(0);
    for (const s of deletes) expect(s).toMatch(/ limit \$\d+\)$|unnest\(/);
  });

  it("defaults to the database's clock", async () => {
    const taskId = await seedTask(db, {
      tenantId: 'acme',
      state: TERMINAL,
      updatedAt: new Date(Date.now() - 31 * DAY),
    });
    const keep = await seedTask(db, {
      tenantId: 'acme',
      state: TERMINAL,
      updatedAt: new Date(Date.now() - 29 * DAY),
    });
    expect((await runRetention(db)).tasks).toBe(1);
    expect((await db.selectFrom('tasks').select('id').execute()).map((r) => r.id)).toEqual([keep]);
    expect(taskId).not.toBe(keep);
  });

  it('refuses options that would break its guarantees', async () => {
    await expect(runRetention(db, { batchSize: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(runRetention(db, { eventTtlMs: -1 })).rejects.toBeInstanceOf(RangeError);
    // A messageId must not outlive the task it points at.
    await expect(
      runRetention(db, { terminalTaskTtlMs: DAY, idempotencyTtlMs: 2 * DAY }),
    ).rejects.toBeInstanceOf(RangeError);
  });
});
