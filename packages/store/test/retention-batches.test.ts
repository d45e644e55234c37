import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../src/database.ts';
import { createDb, type Db } from '../src/db.ts';
import { RetentionError, runRetention } from '../src/retention/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import { seedDeliveries, seedEvents, seedPushConfig, seedTask, TERMINAL } from './outbox-fixtures.ts';

// ARCHITECTURE.md §8: retention is "bounded batched deletes … never a table-wide lock".
const DAY = 24 * 3_600_000;
const secrets = createSecretBox('retention-batches-key-0');
let testDb: TestDatabase;
let db: Db;
let statements: string[];
let parameters: (readonly unknown[])[];
/** The same database, recording every statement retention sends (and its parameters). */
let recorded: Db;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  recorded = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: testDb.pool }),
    log: (event) => {
      if (event.level !== 'query') return;
      statements.push(event.query.sql);
      parameters.push(event.query.parameters);
    },
  });
});
beforeEach(async () => {
  statements = [];
  parameters = [];
  await db.deleteFrom('push_deliveries').execute();
  await db.deleteFrom('push_configs').execute();
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

  // Found in review: a batch was bounded in tasks only. A thousand tasks that each streamed
  // thousands of chunks made one transaction of millions of rows, past the statement timeout on
  // every run, and nothing was ever deleted again.
  it('takes fewer tasks into a batch when their events and chunks pass taskRowsPerBatch', async () => {
    const now = new Date();
    for (let i = 0; i < 3; i++) {
      const taskId = await seedTask(db, {
        tenantId: 'acme',
        state: TERMINAL,
        updatedAt: new Date(now.getTime() - 31 * DAY - i * 1000),
      });
      await seedEvents(db, 'acme', taskId, [1, 2, 3, 4, 5], new Date(now.getTime() - 31 * DAY));
    }
    const result = await runRetention(recorded, { now, batchSize: 10, taskRowsPerBatch: 6 });
    expect(result).toMatchObject({ tasks: 3, taskEvents: 15 });
    // One task a batch (its 5 rows fit, a second's would not), and a fourth finds none left.
    expect(statements.filter((s) => s.startsWith('delete from "tasks"'))).toHaveLength(3);
    expect(await db.selectFrom('tasks').select('id').execute()).toEqual([]);
  });

  it('a step that fails does not stop the others: they run, and the run throws naming it', async () => {
    const now = new Date();
    const expired = await seedTask(db, {
      tenantId: 'acme',
      state: TERMINAL,
      updatedAt: new Date(now.getTime() - 31 * DAY),
    });
    const kept = await seedTask(db, {
      tenantId: 'acme',
      state: TERMINAL,
      updatedAt: new Date(now.getTime() - 2 * DAY),
    });
    await db
      .insertInto('idempotency_keys')
      .values({
        tenant_id: 'acme',
        message_id: 'old',
        principal: 'p',
        task_id: kept,
        created_at: new Date(now.getTime() - 2 * DAY),
      })
      .execute();
    // As if the task sweep's batch ran past the statement timeout, every run.
    await sql`CREATE FUNCTION refuse_task_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure'; END $$`.execute(db);
    await sql`CREATE TRIGGER refuse_task_delete BEFORE DELETE ON tasks
      FOR EACH ROW EXECUTE FUNCTION refuse_task_delete()`.execute(db);
    let thrown: unknown;
    try {
      await runRetention(db, { now }).catch((err: unknown) => (thrown = err));
    } finally {
      await sql`DROP TRIGGER refuse_task_delete ON tasks`.execute(db);
      await sql`DROP FUNCTION refuse_task_delete()`.execute(db);
    }
    expect(thrown).toBeInstanceOf(RetentionError);
    expect((thrown as RetentionError).failures.map((f) => f.step)).toEqual(['expired tasks']);
    expect((thrown as RetentionError).result.idempotencyKeys).toBe(1);
    expect(await db.selectFrom('idempotency_keys').select('message_id').execute()).toEqual([]);
    expect((await db.selectFrom('tasks').select('id').execute()).map((r) => r.id).sort()).toEqual(
      [expired, kept].sort(),
    );
  });

  // Found in review: a catch-up run that outlasted its interval met the next one, started by
  // another worker, on the same rows. One run at a time across the deployment.
  it('skips a run while another holds the retention lock, and deletes nothing', async () => {
    const now = new Date();
    await seedTask(db, { tenantId: 'acme', state: TERMINAL, updatedAt: new Date(now.getTime() - 31 * DAY) });
    const other = await testDb.pool.connect();
    try {
      await other.query('SELECT pg_advisory_lock(7379657502)');
      expect(await runRetention(db, { now })).toMatchObject({ skipped: true, tasks: 0 });
      expect(await db.selectFrom('tasks').select('id').execute()).toHaveLength(1);
      await other.query('SELECT pg_advisory_unlock(7379657502)');
      expect(await runRetention(db, { now })).toMatchObject({ tasks: 1 });
    } finally {
      other.release();
    }
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

  it('walks past kept events once per run: each batch starts at the newest event the last one deleted', async () => {
    const now = new Date();
    const at = (msAgo: number) => new Date(now.getTime() - msAgo);
    // The oldest events are kept (a dead-lettering webhook): a batch that started from the oldest
    // would walk past them again every time.
    const kept = await seedTask(db, { tenantId: 'acme', state: TERMINAL, updatedAt: at(3 * DAY) });
    await seedEvents(db, 'acme', kept, [1, 2, 3, 4], at(3 * DAY));
    const configId = await seedPushConfig(db, secrets, { tenantId: 'acme', taskId: kept });
    await seedDeliveries(db, {
      tenantId: 'acme',
      taskId: kept,
      configId,
      seqs: [1, 2, 3, 4],
      status: 'dead',
    });
    const expired = await seedTask(db, { tenantId: 'acme', state: TERMINAL, updatedAt: at(2 * DAY) });
    const stamps = [7, 6, 5, 4, 3, 2, 1].map((i) => at(2 * DAY + i * 1000));
    for (const [i, stamp] of stamps.entries()) await seedEvents(db, 'acme', expired, [i + 1], stamp);

    const result = await runRetention(recorded, { now, batchSize: 3 });
    expect(result.taskEvents).toBe(7);
    const eventDeletes = statements.flatMap((s, i) => (s.startsWith('delete from "task_events"') ? [i] : []));
    // The lower bound on created_at each batch was sent: none, then the third and sixth deleted.
    expect(eventDeletes.map((i) => (parameters[i]![0] as Date).getTime())).toEqual(
      [new Date(0), stamps[2]!, stamps[5]!].map((d) => d.getTime()),
    );
    expect(
      (await db.selectFrom('task_events').select('seq').where('task_id', '=', kept).execute()).length,
    ).toBe(4);
  });

  it('never sends an unbounded delete: each one is limited or keyed to one batch of tasks', async () => {
    await runRetention(recorded, { batchSize: 10 });
    const deletes = statements.filter((s) => s.startsWith('delete'));
    expect(deletes.length).toBeGreaterThan(0);
    for (const s of deletes) expect(s).toMatch(/ limit \$\d+\)( returning "created_at")?$|unnest\(/);
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
