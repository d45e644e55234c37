// The migrate command as deployments run it: `node packages/store/src/bin/migrate.ts`.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations } from '@switchyard/store';
import { createTestDatabase, REPO_ROOT, type TestDatabase } from '@switchyard/testing';
import { startOneDatabasePooler, type OneDatabasePooler } from './one-database-pooler.ts';

const ENTRY = join(REPO_ROOT, 'packages/store/src/bin/migrate.ts');

function migrate(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ENTRY],
      { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};
const serverUrl = () => withDatabase(process.env['DATABASE_URL']!, 'postgres');

describe('a bad DATABASE_URL', () => {
  it('is named, not reported as `TypeError: Invalid URL`', async () => {
    const { code, output } = await migrate('CHANGE-ME');
    expect(code).not.toBe(0);
    expect(output).toContain('DATABASE_URL: must be a postgres: or postgresql: URL (got "CHANGE-ME")');
    expect(output).not.toContain('Invalid URL');
  });

  it('is named without its password', async () => {
    const { code, output } = await migrate('postgress://switchyard:hunter2@db:5432/switchyard');
    expect(code).not.toBe(0);
    expect(output).toContain('DATABASE_URL: must be a postgres: or postgresql: URL');
    expect(output).not.toContain('hunter2');
  });
});

describe('a bad lock setting', () => {
  it('is named before anything is migrated', async () => {
    // Nothing listens there: a regression that got past the check could not migrate anything.
    const { code, output } = await migrate('postgres://127.0.0.1:1/nowhere', {
      MIGRATION_LOCK_TIMEOUT_MS: '0',
      MIGRATION_LOCK_ATTEMPTS: 'many',
    });
    expect(code).not.toBe(0);
    expect(output).toContain('migrate: invalid configuration, not starting:');
    expect(output).toMatch(/MIGRATION_LOCK_TIMEOUT_MS: /);
    expect(output).toMatch(/MIGRATION_LOCK_ATTEMPTS: /);
  });
});

describe('behind a pooler that serves only the application database', () => {
  let database: TestDatabase;
  let pooler: OneDatabasePooler;
  beforeAll(async () => {
    database = await createTestDatabase();
    const name = new URL(database.url).pathname.slice(1);
    const postgres = new URL(database.url);
    pooler = await startOneDatabasePooler({ host: postgres.hostname, port: Number(postgres.port || 5432) }, [
      name,
    ]);
  });
  afterAll(async () => {
    await pooler?.close();
    await database?.drop();
  });

  it('migrates an existing database without connecting to `postgres`', async () => {
    const url = new URL(database.url);
    url.host = `127.0.0.1:${pooler.port}`;
    const { code, output } = await migrate(url.toString());
    const latest = (await loadMigrations()).at(-1)!.version;
    expect(output).toContain(`schema current at ${latest}`);
    expect(code).toBe(0);
    expect(pooler.asked).not.toContain('postgres');
  });
});

describe('a database that does not exist', () => {
  const name = `sy_migrate_new_${randomBytes(5).toString('hex')}`;
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: serverUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.end();
  });

  it('is created through the `postgres` database, then migrated', async () => {
    const { code, output } = await migrate(withDatabase(process.env['DATABASE_URL']!, name));
    expect(output).toMatch(/^applied 000001_/);
    expect(code).toBe(0);
    const again = await migrate(withDatabase(process.env['DATABASE_URL']!, name));
    expect(again.output).toMatch(/^schema current at \d+/);
  });
});

// Found in review: the README tells a PgBouncer deployment to put the processes' statement and
// idle-in-transaction timeouts on the role, and the migrate command, run under the same role,
// then had each migration cut off at them (an online index build on a large table never finished).
describe('a database whose role or database sets short timeouts', () => {
  const name = `sy_migrate_timeouts_${randomBytes(5).toString('hex')}`;
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: serverUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(name)} SET statement_timeout = '5ms'`);
    await admin.query(
      `ALTER DATABASE ${pg.escapeIdentifier(name)} SET idle_in_transaction_session_timeout = '5ms'`,
    );
    await admin.end();
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: serverUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.end();
  });

  it('is migrated whole: the command lifts them for its own session', async () => {
    const { code, output } = await migrate(withDatabase(process.env['DATABASE_URL']!, name));
    expect(output).toMatch(/^applied 000001_/);
    expect(code).toBe(0);
  });
});
