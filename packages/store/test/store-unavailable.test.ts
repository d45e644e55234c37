import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, freePort, type TestDatabase } from '@switchyard/testing';
import { isStoreGone, isStoreUnavailable, StatementTimeoutError } from '../src/index.ts';

// Which failures the gateway answers as Unavailable (503 + Retry-After) rather than Internal: the
// errors real Postgres and node-postgres raise when the server is away, not request or code bugs.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const caught = async (work: () => Promise<unknown>): Promise<unknown> => {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
};

describe('isStoreUnavailable', () => {
  it('a refused connection is', async () => {
    const url = new URL(db.url);
    url.port = String(await freePort());
    const client = new pg.Client({ connectionString: url.toString() });
    expect(isStoreUnavailable(await caught(() => client.connect()))).toBe(true);
  });

  it('a connection the server terminated is (57P01), and so is the next query on it', async () => {
    const client = new pg.Client({ connectionString: db.url });
    client.on('error', () => undefined);
    await client.connect();
    const {
      rows: [me],
    } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const killed = caught(() => client.query('SELECT pg_sleep(10)'));
    await db.pool.query('SELECT pg_terminate_backend($1)', [me!.pid]);
    const err = await killed;
    expect(err).toMatchObject({ code: '57P01' });
    expect(isStoreUnavailable(err)).toBe(true);
    expect(isStoreUnavailable(await caught(() => client.query('SELECT 1')))).toBe(true);
  });

  it("a pool with no connection to give within its timeout is, and the client's statement timeout", async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1, connectionTimeoutMillis: 50 });
    const held = await pool.connect();
    try {
      expect(isStoreUnavailable(await caught(() => pool.query('SELECT 1')))).toBe(true);
    } finally {
      held.release();
      await pool.end();
    }
    expect(isStoreUnavailable(new StatementTimeoutError(1000))).toBe(true);
  });

  it('a cause chain is followed', () => {
    const outage = Object.assign(new Error('boom'), { code: '57P03' });
    expect(isStoreUnavailable(new Error('wrapped', { cause: outage }))).toBe(true);
    expect(isStoreUnavailable(new AggregateError([new Error('x'), outage]))).toBe(true);
  });

  it("PgBouncer's own pool errors are (08P01 with its texts); a real protocol violation is not", () => {
    const pooler = (message: string) => Object.assign(new Error(message), { code: '08P01' });
    expect(isStoreUnavailable(pooler('pgbouncer cannot connect to server'))).toBe(true);
    expect(isStoreUnavailable(pooler('query_wait_timeout'))).toBe(true);
    expect(isStoreUnavailable(pooler('no more connections allowed (max_client_conn)'))).toBe(true);
    expect(
      isStoreUnavailable(pooler('bind message supplies 2 parameters, but prepared statement requires 3')),
    ).toBe(false);
  });

  it('nor are the SQLSTATEs of those classes a retry does not fix', () => {
    for (const code of ['08P01', '53100', '53200', '53400', '40P01', '23505'])
      expect(isStoreUnavailable(Object.assign(new Error('x'), { code }))).toBe(false);
  });

  it('a bad statement, a constraint violation or a plain bug is not', async () => {
    expect(isStoreUnavailable(await caught(() => db.pool.query('SELEC 1')))).toBe(false);
    expect(isStoreUnavailable(await caught(() => db.pool.query("SELECT 'x'::uuid")))).toBe(false);
    expect(isStoreUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(
      false,
    );
    expect(isStoreUnavailable(undefined)).toBe(false);
    expect(isStoreUnavailable('Connection terminated')).toBe(false);
  });
});

describe('isStoreGone (the runner refunds a run only this ended)', () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['a terminated connection', new Error('Connection terminated unexpectedly')],
    [
      'an admin shutdown',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ],
    [
      'a failover to a replica',
      Object.assign(new Error('cannot execute UPDATE in a read-only transaction'), { code: '25006' }),
    ],
  ])('%s is gone', (_what, err) => {
    expect(isStoreGone(err)).toBe(true);
    expect(isStoreGone(new Error('wrapped', { cause: err }))).toBe(true);
  });

  it.each([
    [
      'a statement timeout',
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
    ],
    ['a full pool', new Error('timeout exceeded when trying to connect')],
    ['too many connections', Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
    [
      'our own statement deadline',
      Object.assign(new Error('statement took too long'), { code: 'SY_STATEMENT_TIMEOUT' }),
    ],
    ['a bug', new Error('column "x" does not exist')],
  ])('%s is not (overload, or no outage at all)', (_what, err) => {
    expect(isStoreGone(err)).toBe(false);
  });
});
