import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, waitFor, type TestDatabase } from '@switchyard/testing';
import { DEFAULT_MIGRATIONS_DIR, runMigrations } from '../src/index.ts';

// Found in review: a migration's DDL waited for its ACCESS EXCLUSIVE lock without end, and every
// statement on that table queued behind the wait: one long query (a report, a stuck transaction)
// during a deploy stopped all task traffic until it ended. A migration's lock waits are now bounded,
// and a try that gives up rolls back and is made again after a pause.
let database: TestDatabase;
let dir = '';
const PROBE = '000999_lock_probe';
const clients: pg.Client[] = [];

async function connect(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  clients.push(c);
  return c;
}

/** A session holding a read lock on `tenants` (an open transaction that read it) until `release`. */
async function readerHoldingTenants() {
  const c = await connect();
  await c.query('BEGIN');
  await c.query('SELECT count(*) FROM tenants');
  return { release: () => c.query('COMMIT') };
}

/** Until backend `pid` waits for a lock, as `observer` sees it. */
const waitingForLock = (observer: pg.Client, pid: number) =>
  waitFor(
    async () =>
      (
        await observer.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = $2', [
          pid,
          'Lock',
        ])
      ).rowCount === 1,
    { what: 'the migration to wait for its lock', intervalMs: 5 },
  );

const hasProbeColumn = async (c: pg.Client) =>
  (
    await c.query(
      "SELECT 1 FROM information_schema.columns WHERE table_name = 'tenants' AND column_name = 'lock_probe'",
    )
  ).rowCount === 1;

beforeAll(async () => {
  database = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'sy-migrations-'));
  for (const file of await readdir(DEFAULT_MIGRATIONS_DIR)) {
    if (file.endsWith('.sql')) await copyFile(join(DEFAULT_MIGRATIONS_DIR, file), join(dir, file));
  }
  await writeFile(join(dir, `${PROBE}.sql`), 'ALTER TABLE tenants ADD COLUMN lock_probe integer;\n');
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await database?.drop();
  if (dir) await rm(dir, { recursive: true });
});

describe('a migration whose table is locked by a long transaction', () => {
  it('gives up after its lock timeout, lets the traffic queued behind it through, and fails when the lock stays', async () => {
    const holder = await readerHoldingTenants();
    const migrator = await connect();
    const pid = (await migrator.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const waits: number[] = [];
    const run = runMigrations(migrator, dir, {
      lockTimeoutMs: 1000,
      attempts: 3,
      retryDelayMs: 100,
      onLockWait: (_name, attempt) => waits.push(attempt),
    });
    const failed = run.then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    // Once the migration waits for its lock, a query on the table queues behind it (Postgres names
    // the migration among what blocks it); it gets its answer although the long transaction still
    // holds the table.
    const traffic = await connect();
    const trafficPid = (await traffic.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const watcher = await connect();
    const blockedBy = async (who: number, blocker: number) =>
      (await watcher.query('SELECT 1 WHERE $2::int = ANY(pg_blocking_pids($1))', [who, blocker])).rowCount ===
      1;
    await waitingForLock(watcher, pid);
    // Sent again should a try give up between the two reads: this is about one that queued.
    let queued = false;
    let over = false;
    void failed.then(() => (over = true));
    while (!queued && !over) {
      let answered = false;
      const read = traffic.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants');
      void read.then(() => (answered = true));
      await waitFor(async () => answered || (queued = await blockedBy(trafficPid, pid)), {
        what: 'the query to queue behind the migration',
        intervalMs: 5,
      });
      expect((await read).rows).toHaveLength(1);
    }
    expect(queued).toBe(true);

    const err = await failed;
    expect(err?.message).toBe(
      `migration ${PROBE} failed (no lock after 3 tries, each waiting at most 1000 ms)`,
    );
    expect(waits).toEqual([1, 2]);
    // Rolled back whole: neither the change nor its ledger row.
    expect(await hasProbeColumn(traffic)).toBe(false);
    const ledger = await traffic.query('SELECT 1 FROM schema_migrations WHERE version = 999');
    expect(ledger.rowCount).toBe(0);
    await holder.release();
  });

  it('names the migration when its connection is cut while it waits', async () => {
    const holder = await readerHoldingTenants();
    const migrator = await connect();
    migrator.on('error', () => undefined);
    const pid = (await migrator.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const run = runMigrations(migrator, dir, { lockTimeoutMs: 60_000 }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    const admin = await connect();
    await waitingForLock(admin, pid);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    // Not the failed ROLLBACK's or unlock's "not queryable": the error says which migration.
    expect((await run)?.message).toBe(`migration ${PROBE} failed`);
    await holder.release();
  });

  it('is applied by a later try once the lock is let go', async () => {
    const holder = await readerHoldingTenants();
    const migrator = await connect();
    let released: Promise<unknown> | undefined;
    const { applied } = await runMigrations(migrator, dir, {
      lockTimeoutMs: 100,
      attempts: 50,
      retryDelayMs: 50,
      // The long transaction ends after the first try gave up.
      onLockWait: () => (released ??= holder.release()),
    });
    expect(released).toBeDefined();
    await released;
    expect(applied).toEqual([PROBE]);
    expect(await hasProbeColumn(migrator)).toBe(true);
  });
});
