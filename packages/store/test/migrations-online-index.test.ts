import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, waitFor, type TestDatabase } from '@switchyard/testing';
import { DEFAULT_MIGRATIONS_DIR, loadMigrations, runMigrations } from '../src/index.ts';
import { ONLINE_INDEX_DIRECTIVE, partitionIndexName } from '../src/migrations/online-index.ts';

// A plain CREATE INDEX holds a SHARE lock on every partition of `tasks` for the whole build, and
// no task can be written meanwhile. A migration marked as an online index build is built with
// CREATE INDEX CONCURRENTLY partition by partition and attached to an index on the parent, so
// task writers go on while it runs, and a build cut off is resumed by the next migrate command.

const PROBE = '000999_online_probe';
const INDEX = 'tasks_online_probe';
const PROBE_SQL = `-- a probe index on tasks, built online
${ONLINE_INDEX_DIRECTIVE}
CREATE INDEX ${INDEX} ON tasks (updated_at, tenant_id)
  WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING');
`;
let dir = '';
const databases: TestDatabase[] = [];
const clients: pg.Client[] = [];

async function connect(database: TestDatabase): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: database.url });
  c.on('error', () => undefined);
  await c.connect();
  clients.push(c);
  return c;
}

/** A migrated database (every shipped migration) that does not have the probe yet. */
async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  databases.push(db);
  return db;
}

async function insertTask(c: pg.Client, tenantId: string): Promise<string> {
  const id = randomUUID();
  await c.query(
    `INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
     VALUES ($1, $2, $3, 'echo', 'probe', 'task', 'TASK_STATE_WORKING', 1, now())`,
    [tenantId, id, randomUUID()],
  );
  return id;
}

const bump = (c: pg.Client, tenantId: string, id: string) =>
  c.query('UPDATE tasks SET version = version + 1 WHERE tenant_id = $1 AND id = $2', [tenantId, id]);

/** Whether the probe's index is valid, and for each partition of tasks its index's state. */
async function indexState(c: pg.Client) {
  const validity = async (name: string) =>
    (
      await c.query<{ valid: boolean }>(
        'SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)',
        [name],
      )
    ).rows[0]?.valid;
  const partitions: { partition: string; valid: boolean | undefined; attached: boolean }[] = [];
  for (const partition of await partitionsOfTasks(c)) {
    const index = partitionIndexName(INDEX, partition);
    const attached = await c.query(
      'SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = to_regclass($2)',
      [index, INDEX],
    );
    partitions.push({ partition, valid: await validity(index), attached: attached.rowCount === 1 });
  }
  return { parentValid: await validity(INDEX), partitions };
}

async function partitionsOfTasks(c: pg.Client): Promise<string[]> {
  const { rows } = await c.query<{ relname: string }>(
    "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'tasks'::regclass ORDER BY 1",
  );
  return rows.map((r) => r.relname);
}

const backendPid = async (c: pg.Client) =>
  (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sy-online-index-'));
  for (const file of await readdir(DEFAULT_MIGRATIONS_DIR)) {
    if (file.endsWith('.sql')) await copyFile(join(DEFAULT_MIGRATIONS_DIR, file), join(dir, file));
  }
  await writeFile(join(dir, `${PROBE}.sql`), PROBE_SQL);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await Promise.all(databases.map((db) => db.drop()));
  if (dir) await rm(dir, { recursive: true });
});

describe('an online index migration', () => {
  it('is refused when read unless it is one plain CREATE INDEX', async () => {
    const bad = await mkdtemp(join(tmpdir(), 'sy-online-bad-'));
    try {
      for (const body of [
        `CREATE INDEX CONCURRENTLY x ON tasks (id);`,
        `CREATE INDEX x ON tasks (id); CREATE INDEX y ON tasks (owner);`,
        `ALTER TABLE tasks ADD COLUMN x integer;`,
        `CREATE INDEX x ON public.tasks (id);`,
      ]) {
        await writeFile(join(bad, '000001_bad.sql'), `${ONLINE_INDEX_DIRECTIVE}\n${body}\n`);
        await expect(loadMigrations(bad)).rejects.toThrow(
          `migration 000001_bad is marked ${ONLINE_INDEX_DIRECTIVE} but is not one statement`,
        );
      }
    } finally {
      await rm(bad, { recursive: true });
    }
  });

  it("lets task writers through while a partition's build is under way, and builds a valid index on every partition", async () => {
    const db = await database();
    const holder = await connect(db);
    const writer = await connect(db);
    const migrator = await connect(db);
    const observer = await connect(db);
    const tenants = ['acme', 'globex', 'initech', 'umbrella'];
    const ids: (readonly [string, string])[] = [];
    for (const t of tenants) ids.push([t, await insertTask(writer, t)]);
    // A transaction with an old snapshot stays open (a report, say): each partition's concurrent
    // build waits for it once built, holding its lock on the partition meanwhile.
    await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await holder.query('SELECT count(*) FROM tasks');
    const pid = await backendPid(migrator);
    const run = runMigrations(migrator, dir);
    const done = run.then(
      () => true,
      () => true,
    );
    const buildWaiting = async () =>
      (
        await observer.query(
          "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock' AND query LIKE '%CONCURRENTLY%'",
          [pid],
        )
      ).rowCount === 1;
    await waitFor(buildWaiting, {
      what: "a partition's build to wait for the open transaction",
      intervalMs: 5,
    });
    // Writes to every tenant's partition, new tasks among them, while the build is under way: a
    // plain CREATE INDEX's SHARE lock would hold each of them for its whole build. Bounded, so a
    // write that queued behind the build fails the test instead of hanging it.
    await writer.query('SET statement_timeout = 5000');
    for (const [tenantId, id] of ids) {
      await bump(writer, tenantId, id);
      await insertTask(writer, tenantId);
    }
    expect(await buildWaiting()).toBe(true);
    await holder.query('COMMIT');
    expect(await done).toBe(true);
    const { applied } = await run;
    expect(applied).toEqual([PROBE]);

    const state = await indexState(observer);
    expect(state.parentValid).toBe(true);
    expect(state.partitions).toHaveLength(8);
    for (const p of state.partitions) {
      expect(p).toMatchObject({ valid: true, attached: true });
    }
    const ledger = await observer.query('SELECT 1 FROM schema_migrations WHERE version = 999');
    expect(ledger.rowCount).toBe(1);
  });

  it('resumes a build cut off midway: keeps what was built, rebuilds what was left invalid', async () => {
    const db = await database();
    const c = await connect(db);
    const [first, second] = (await partitionsOfTasks(c)) as [string, string];
    const definition = `(updated_at, tenant_id) WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`;
    // Where a crash could leave it: the parent's index, one partition's built and attached, the
    // next one's build cut off (CONCURRENTLY leaves an invalid index behind).
    await c.query(`CREATE INDEX ${INDEX} ON ONLY tasks ${definition}`);
    await c.query(`CREATE INDEX ${partitionIndexName(INDEX, first)} ON ${first} ${definition}`);
    await c.query(`ALTER INDEX ${INDEX} ATTACH PARTITION ${partitionIndexName(INDEX, first)}`);
    await c.query(`CREATE INDEX ${partitionIndexName(INDEX, second)} ON ${second} ${definition}`);
    await c.query('UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass($1)', [
      partitionIndexName(INDEX, second),
    ]);
    const oidOf = async (name: string) =>
      (await c.query<{ oid: number }>('SELECT to_regclass($1)::oid AS oid', [name])).rows[0]!.oid;
    const firstOid = await oidOf(partitionIndexName(INDEX, first));
    const secondOid = await oidOf(partitionIndexName(INDEX, second));

    const { applied } = await runMigrations(await connect(db), dir);
    expect(applied).toEqual([PROBE]);
    const state = await indexState(c);
    expect(state.parentValid).toBe(true);
    expect(state.partitions.every((p) => p.valid && p.attached)).toBe(true);
    expect(await oidOf(partitionIndexName(INDEX, first))).toBe(firstOid);
    expect(await oidOf(partitionIndexName(INDEX, second))).not.toBe(secondOid);
  });

  it("keeps a partition's index that Postgres made for it, as for a partition added mid-build", async () => {
    const db = await database();
    const c = await connect(db);
    const [first] = (await partitionsOfTasks(c)) as [string];
    const definition = `(updated_at, tenant_id) WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`;
    // As Postgres leaves it for a partition attached after the parent's index was made: an index
    // of its own name, already attached.
    await c.query(`CREATE INDEX ${INDEX} ON ONLY tasks ${definition}`);
    await c.query(`CREATE INDEX postgres_named_probe ON ${first} ${definition}`);
    await c.query(`ALTER INDEX ${INDEX} ATTACH PARTITION postgres_named_probe`);

    const { applied } = await runMigrations(await connect(db), dir);
    expect(applied).toEqual([PROBE]);
    const state = await indexState(c);
    expect(state.parentValid).toBe(true);
    // The first partition has no index of the runner's name: its own one serves.
    expect(state.partitions.find((p) => p.partition === first)).toMatchObject({ valid: undefined });
    expect(state.partitions.filter((p) => p.partition !== first).every((p) => p.valid && p.attached)).toBe(
      true,
    );
    const { rows } = await c.query<{ indexes: string }>(
      `SELECT count(*)::int AS indexes FROM pg_index WHERE indrelid = to_regclass($1)
          AND pg_get_indexdef(indexrelid) LIKE '%(updated_at, tenant_id)%'`,
      [first],
    );
    expect(rows[0]!.indexes).toBe(1);
  });

  it('stops, recording nothing, when an index of its name exists on another table', async () => {
    const db = await database();
    const c = await connect(db);
    await c.query('CREATE TABLE probe_other (x int)');
    await c.query(`CREATE INDEX ${INDEX} ON probe_other (x)`);
    await expect(runMigrations(await connect(db), dir)).rejects.toMatchObject({
      message: `migration ${PROBE} failed`,
      cause: { message: `an index named ${INDEX} already exists on probe_other, not on tasks` },
    });
    const ledger = await c.query('SELECT 1 FROM schema_migrations WHERE name = $1', [PROBE]);
    expect(ledger.rowCount).toBe(0);
  });

  it('is applied once by migrate commands started together, none of them deadlocked by the build', async () => {
    const db = await database();
    const migrators = await Promise.all([1, 2, 3].map(() => connect(db)));
    const results = await Promise.all(migrators.map((m) => runMigrations(m, dir)));
    expect(results.flatMap((r) => r.applied)).toEqual([PROBE]);
    const state = await indexState(migrators[0]!);
    expect(state.parentValid).toBe(true);
  });
});
