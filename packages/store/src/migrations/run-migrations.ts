import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { buildOnlineIndex, parseOnlineIndex, type OnlineIndex } from './online-index.ts';

/** The repository's frozen, numbered SQL migrations. */
export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../../../migrations', import.meta.url));

/** Any key works as long as every process agrees on it; this one spells "sy-migr". */
const MIGRATION_LOCK_KEY = 0x73792d6d6967;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
  /** Set for an online index build (online-index.ts), applied outside a transaction. */
  online?: OnlineIndex;
}

export interface MigrationResult {
  applied: string[];
  current: number;
}

export interface MigrationOptions {
  /**
   * How long one of a migration's lock requests waits before the try gives up and is made again.
   * Default 3 s. While a request waits (behind a long transaction, say), the statements that
   * conflict with it queue behind it: all of them for ALTER TABLE or DROP INDEX (ACCESS
   * EXCLUSIVE), the writers for CREATE INDEX (SHARE). It bounds the wait, not how long a granted
   * lock is then held (an index build reads its whole table).
   */
  lockTimeoutMs?: number;
  /** Tries of one migration before the run fails. Default 20. */
  attempts?: number;
  /** Pause between tries, so the traffic that queued behind a try gets through. Default 1 s. */
  retryDelayMs?: number;
  /** Told of each try that gave up waiting for a lock (the migrate command logs it). */
  onLockWait?: (migration: string, attempt: number) => void;
}

/**
 * SQLSTATEs after which a try is made again: lock_not_available (a statement gave up at its
 * lock_timeout) and deadlock_detected (the migration was the deadlock's victim). Both roll back
 * the whole try, so the next starts clean.
 */
const LOCK_WAIT_CODES = new Set(['55P03', '40P01']);

export async function loadMigrations(dir = DEFAULT_MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{6}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(join(dir, file), 'utf8');
      const name = file.replace(/\.sql$/, '');
      const online = parseOnlineIndex(name, sql);
      return {
        version: Number(file.slice(0, 6)),
        name,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
        ...(online ? { online } : {}),
      };
    }),
  );
}

/**
 * Applies pending migrations. Safe when several processes start at once: a session-level advisory
 * lock serialises them, and each migration commits in its own transaction with its ledger row.
 * An applied migration whose file changed is refused: migrations are frozen once landed.
 */
export async function runMigrations(
  client: pg.ClientBase,
  dir = DEFAULT_MIGRATIONS_DIR,
  options: MigrationOptions = {},
): Promise<MigrationResult> {
  const migrations = await loadMigrations(dir);
  await takeMigrationLock(client);
  const applied: string[] = [];
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    const done = new Map(rows.map((r) => [r.version, r]));
    for (const m of migrations) {
      const prior = done.get(m.version);
      if (prior) {
        if (prior.checksum !== m.checksum) {
          throw new Error(`migration ${m.name} was edited after it was applied; add a new migration instead`);
        }
        continue;
      }
      await (m.online ? applyOnlineIndex(client, m, m.online, options) : applyMigration(client, m, options));
      applied.push(m.name);
    }
  } catch (err) {
    // The connection may be gone (Postgres restarted): the unlock would fail too, and its error
    // would hide the one that names the migration. The lock ends with the session anyway.
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    throw err;
  }
  await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  return { applied, current: migrations.at(-1)?.version ?? 0 };
}

/** How often a migrate command waiting for another's migrations asks for the lock again. */
const LOCK_POLL_MS = 200;

/**
 * The session-level lock that serialises migrate commands, taken by asking until it is free
 * rather than by waiting in pg_advisory_lock: a waiting statement holds a snapshot, and an
 * online index build (CREATE INDEX CONCURRENTLY) waits for every older snapshot to go, so a
 * second migrate command blocked on the lock would deadlock with the build holding it.
 */
async function takeMigrationLock(client: pg.ClientBase): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
      MIGRATION_LOCK_KEY,
    ]);
    if (rows[0]?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/**
 * One migration and its ledger row in one transaction, whose lock waits are bounded
 * (MigrationOptions.lockTimeoutMs): a try that times out on a lock rolls back whole and is made
 * again after a pause, up to `attempts` tries.
 */
async function applyMigration(client: pg.ClientBase, m: Migration, options: MigrationOptions): Promise<void> {
  await withLockRetries(m, options, async (lockTimeoutMs) => {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = ${lockTimeoutMs}`);
      await client.query(m.sql);
      await recordApplied(client, m);
      await client.query('COMMIT');
    } catch (err) {
      // On a connection that is gone the ROLLBACK fails as well; the error to report is `err`.
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}

/**
 * An online index build (online-index.ts), then its ledger row. It runs outside a transaction,
 * so it commits step by step; a try that fails on a lock wait or a deadlock is made again after
 * a pause, as a migration's is, and resumes where the last one stopped, as does the next migrate
 * command after a crash (the ledger row is written last).
 */
async function applyOnlineIndex(
  client: pg.ClientBase,
  m: Migration,
  index: OnlineIndex,
  options: MigrationOptions,
): Promise<void> {
  await withLockRetries(m, options, async (lockTimeoutMs) => {
    const shortStep = async (sql: string) => {
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL lock_timeout = ${lockTimeoutMs}`);
        await client.query(sql);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    };
    try {
      await buildOnlineIndex(client, index, shortStep);
    } finally {
      await client.query('RESET lock_timeout').catch(() => undefined);
    }
  });
  await recordApplied(client, m);
}

/**
 * Runs `tryOnce` until it does not fail on a lock wait or a deadlock, pausing between tries, up
 * to `attempts` tries; any other failure, or the last, ends the migration with its name.
 */
async function withLockRetries(
  m: Migration,
  options: MigrationOptions,
  tryOnce: (lockTimeoutMs: number) => Promise<void>,
): Promise<void> {
  const { attempts = 20, retryDelayMs = 1000, onLockWait } = options;
  // A whole number of ms (SET LOCAL takes no bind parameters), and never 0, which means no limit.
  const lockTimeoutMs = Math.max(1, Math.trunc(options.lockTimeoutMs ?? 3000));
  for (let attempt = 1; ; attempt++) {
    try {
      await tryOnce(lockTimeoutMs);
      return;
    } catch (err) {
      const lockWait = LOCK_WAIT_CODES.has(String((err as { code?: unknown }).code));
      if (!lockWait || attempt >= attempts) {
        const why = lockWait ? ` (no lock after ${attempt} tries, each waiting at most ${lockTimeoutMs} ms)` : '';
        throw new Error(`migration ${m.name} failed${why}`, { cause: err });
      }
      onLockWait?.(m.name, attempt);
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    }
  }
}

function recordApplied(client: pg.ClientBase, m: Migration) {
  return client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
    m.version,
    m.name,
    m.checksum,
  ]);
}

/** SQLSTATE undefined_table: here, the ledger table does not exist yet. */
const UNDEFINED_TABLE = '42P01';

/**
 * Readiness: true when every migration on disk has been applied, false when some are not (none
 * are, if the ledger table does not exist yet). Any other failure is thrown: an unreachable
 * Postgres, a database that does not exist or a refused password is not "not migrated", and
 * whoever waits on this must be able to say which it is.
 */
export async function migrationsCurrent(client: pg.ClientBase | pg.Pool, dir = DEFAULT_MIGRATIONS_DIR): Promise<boolean> {
  const latest = await latestVersion(dir);
  try {
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    return (rows[0]?.v ?? 0) >= latest;
  } catch (err) {
    if ((err as { code?: unknown }).code === UNDEFINED_TABLE) return false;
    throw err;
  }
}

/** A process's migration files do not change while it runs: read once, not on every probe. */
const latestVersions = new Map<string, Promise<number>>();
function latestVersion(dir: string): Promise<number> {
  let latest = latestVersions.get(dir);
  if (!latest) {
    latest = loadMigrations(dir).then((migrations) => migrations.at(-1)?.version ?? 0);
    latest.catch(() => latestVersions.delete(dir));
    latestVersions.set(dir, latest);
  }
  return latest;
}

export interface DatabaseReadiness {
  postgres: boolean;
  migrations: boolean;
}

/**
 * How long a readiness check waits for Postgres. A query on a busy pool first waits for a
 * connection (PG_CONNECT_TIMEOUT_MS, 10 s by default), past an orchestrator's probe timeout (3 s
 * in deploy/kubernetes): the probe would fail on its timeout, and each one would queue another
 * waiter on the pool.
 */
export const READINESS_TIMEOUT_MS = 1_000;

/** Per pool: the check in flight, which later probes share, and whether the schema was current. */
const readiness = new WeakMap<pg.Pool, { inFlight?: Promise<DatabaseReadiness>; current: boolean }>();

/**
 * Readiness checks every process reports on /readyz: Postgres answers, and the schema is current.
 * Time-boxed (`timeoutMs`: then both are false) and shared: probes that come while a check is in
 * flight wait for that one, so a slow Postgres has at most one probe query waiting per pool. Once
 * the schema was current it is not asked again (a process's migrations do not change, and a
 * schema only moves forward).
 */
export async function databaseReadiness(
  pool: pg.Pool,
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<DatabaseReadiness> {
  let state = readiness.get(pool);
  if (!state) readiness.set(pool, (state = { current: false }));
  const shared = state;
  if (!shared.inFlight) {
    const started = checkDatabase(pool, shared).finally(() => {
      if (shared.inFlight === started) shared.inFlight = undefined;
    });
    shared.inFlight = started;
  }
  const check = shared.inFlight;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<DatabaseReadiness>((resolve) => {
    timer = setTimeout(() => {
      // A check stuck on a dead socket is not shared past its time: the next probe asks anew.
      if (shared.inFlight === check) shared.inFlight = undefined;
      resolve({ postgres: false, migrations: false });
    }, timeoutMs);
  });
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function checkDatabase(pool: pg.Pool, state: { current: boolean }): Promise<DatabaseReadiness> {
  const postgres = await pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
  if (postgres && !state.current) state.current = await migrationsCurrent(pool).catch(() => false);
  return { postgres, migrations: postgres && state.current };
}
