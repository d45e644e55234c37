import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadMigrations, runMigrations } from '@switchyard/store';

/** A database of its own for one test file, cloned from a migrated template. */
export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url)
    throw new Error('DATABASE_URL is not set: run tests through vitest (its global setup resolves services)');
  return withDatabase(url, 'postgres');
}

/**
 * The template is named by a digest of every migration's checksum, so a schema change builds a new
 * one and an unchanged schema reuses it across runs (graphile-worker's "clone a migrated template"
 * pattern). A digest, not the checksums strung together: Postgres cuts names at 63 bytes, and from
 * the ninth migration on the cut name no longer changed with the schema (and equalled its `_build`).
 */
export async function ensureTemplateDatabase(): Promise<string> {
  const migrations = await loadMigrations();
  const digest = createHash('sha256');
  for (const m of migrations) digest.update(`${m.checksum}\n`);
  const name = `sy_template_${digest.digest('hex').slice(0, 24)}`;
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(73796574)');
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      const building = `${name}_build`;
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(building)}`);
      await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(building)}`);
      const client = new pg.Client({ connectionString: withDatabase(serverUrl(), building) });
      await client.connect();
      try {
        await runMigrations(client);
      } finally {
        await client.end();
      }
      await admin.query(
        `ALTER DATABASE ${pg.escapeIdentifier(building)} RENAME TO ${pg.escapeIdentifier(name)}`,
      );
    }
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock(73796574)');
    await admin.end();
  }
}

/** Creates a fresh migrated database for the calling test file. Call `drop()` in afterAll. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = await ensureTemplateDatabase();
  const name = `sy_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query(
      `CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`,
    );
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl(), name);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // The forced drop below terminates connections pg-pool is still closing; that is expected.
  pool.on('error', () => undefined);
  return {
    url,
    pool,
    async drop() {
      await pool.end();
      const c = new pg.Client({ connectionString: serverUrl() });
      await c.connect();
      try {
        // pg-pool's end() resolves before its clients' sockets close, and a client the forced drop
        // terminates while it is closing reports FATAL 57P01 with no listener left: an uncaught
        // error that fails the run. So the drop first gives the closing connections a moment to go.
        for (let wait = 0; wait < 40; wait++) {
          const { rows } = await c.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
            [name],
          );
          if (rows[0]!.n === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
