// A process waiting for the schema said only "not current (or Postgres is unreachable)": the
// check swallowed every error. Only a missing ledger table means "not migrated"; any other error
// is logged as Postgres gave it (message and SQLSTATE, never the password).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@switchyard/telemetry';
import { createTestDatabase, waitFor, type TestDatabase } from '@switchyard/testing';
import { migrationsCurrent, waitForCurrentSchema } from '../src/index.ts';
import { describePgError } from '../src/migrations/wait-for-current-schema.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.pool.query('CREATE SCHEMA IF NOT EXISTS never_migrated');
});
afterAll(async () => {
  await database?.drop();
});

const withDatabase = (name: string, password?: string) => {
  const url = new URL(database.url);
  url.pathname = `/${name}`;
  if (password !== undefined) url.password = password;
  return url.toString();
};

function captured() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({
    name: 'test',
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { log, lines };
}

describe('migrationsCurrent', () => {
  it('is false where the ledger table does not exist (42P01)', async () => {
    const pool = new pg.Pool({
      connectionString: database.url,
      options: '-c search_path=never_migrated',
      max: 1,
    });
    try {
      expect(await migrationsCurrent(pool)).toBe(false);
    } finally {
      await pool.end();
    }
  });

  it('throws what else goes wrong, for the caller to tell apart', async () => {
    const pool = new pg.Pool({ connectionString: withDatabase('sy_no_such_database'), max: 1 });
    try {
      await expect(migrationsCurrent(pool)).rejects.toMatchObject({ code: '3D000' });
    } finally {
      await pool.end();
    }
  });
});

describe('waitForCurrentSchema against a database that does not exist', () => {
  it("logs Postgres's own error and code at warn, once while it stays the same", async () => {
    const { log, lines } = captured();
    const pool = new pg.Pool({ connectionString: withDatabase('sy_no_such_database', 'hunter2'), max: 1 });
    let checks = 0;
    const query = pool.query.bind(pool) as (sql: string) => Promise<unknown>;
    Object.assign(pool, { query: (sql: string) => ((checks += 1), query(sql)) });
    const stop = new AbortController();
    const waiting = waitForCurrentSchema({ pool, log, signal: stop.signal, pollMs: 10 });
    try {
      // Several checks fail the same way: still one line.
      await waitFor(() => checks >= 5, { what: 'five checks' });
      stop.abort();
      expect(await waiting).toBe(false);
    } finally {
      await pool.end();
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      error: { code: '3D000', message: expect.stringContaining('sy_no_such_database') },
    });
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });
});

describe('waitForCurrentSchema, as the failure changes', () => {
  it('logs each distinct failure once, and the schema being behind once', async () => {
    // Postgres goes from refusing connections to a refused password to answering on an old schema.
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
    const password = Object.assign(new Error('password authentication failed for user "app"'), {
      code: '28P01',
    });
    const answers: Array<Error | number> = [refused, refused, password, password, 1, 1];
    const stop = new AbortController();
    const pool = {
      query: async () => {
        const next = answers.shift();
        if (next === undefined) stop.abort();
        if (next instanceof Error) throw next;
        return { rows: [{ v: next ?? 1 }] };
      },
    } as unknown as pg.Pool;
    const { log, lines } = captured();
    expect(await waitForCurrentSchema({ pool, log, signal: stop.signal, pollMs: 1 })).toBe(false);
    expect(lines.map((l) => [l.msg, (l.error as { code?: string } | undefined)?.code])).toEqual([
      [expect.stringMatching(/^cannot check the database schema/), 'ECONNREFUSED'],
      [expect.stringMatching(/^cannot check the database schema/), '28P01'],
      ['database migrations are not current: waiting before taking any work', undefined],
    ]);
  });
});

describe('describePgError', () => {
  it('keeps the message and the code only, and cuts credentials out of a URL in the message', () => {
    const err = Object.assign(new Error('could not reach postgres://app:hunter2@db:5432/sy'), {
      code: 'ECONNREFUSED',
      client: { password: 'hunter2' },
    });
    expect(describePgError(err)).toEqual({
      message: 'could not reach postgres://[redacted]@db:5432/sy',
      code: 'ECONNREFUSED',
    });
  });

  it('reads the errors inside an AggregateError, whose own message is empty', () => {
    const err = Object.assign(
      new AggregateError([
        new Error('connect ECONNREFUSED ::1:1'),
        new Error('connect ECONNREFUSED 127.0.0.1:1'),
      ]),
      {
        code: 'ECONNREFUSED',
      },
    );
    expect(describePgError(err)).toEqual({
      message: 'connect ECONNREFUSED ::1:1; connect ECONNREFUSED 127.0.0.1:1',
      code: 'ECONNREFUSED',
    });
  });
});
