import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTcpProxy, type TestDatabase } from '@switchyard/testing';
import { sql } from 'kysely';
import { createDb, createPool, isStoreUnavailable, StatementTimeoutError } from '../src/index.ts';
import { serverTimeoutOptions } from '../src/db.ts';

// Found by the fault-injection suite (chaos/): a Postgres restart killed gateways and workers
// through an unhandled 'error' event of a checked-out client.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('createPool', () => {
  it('survives a checked-out client losing its connection between statements; its next query fails', async () => {
    const pool = createPool({ connectionString: db.url });
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    // The FATAL arrives while no query runs: without a listener, the process would crash here.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    await expect(pool.query('SELECT 1 AS ok')).resolves.toMatchObject({ rows: [{ ok: 1 }] });
    await pool.end();
  });

  it('survives an idle client losing its connection with no pool error listener of its own', async () => {
    const pool = createPool({ connectionString: db.url });
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // The client is idle now: pg-pool re-emits its error on the pool, which has no listener here.
    await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(pool.query('SELECT 1 AS ok')).resolves.toMatchObject({ rows: [{ ok: 1 }] });
    await pool.end();
  });

  it('gives up on a server that accepts the connection and never answers, instead of hanging', async () => {
    // What a vanished primary looks like from here when nothing resets the connection.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const pool = createPool({
      connectionString: `postgres://postgres@127.0.0.1:${port}/x`,
      connectTimeoutMs: 300,
    });
    try {
      await expect(pool.query('SELECT 1')).rejects.toThrow(/timeout/i);
    } finally {
      await pool.end();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('drops a connection whose server goes silent mid-statement, fails that call, and serves the next on a new one', async () => {
    const proxy = await startTcpProxy(new URL(db.url).hostname, Number(new URL(db.url).port || 5432));
    const url = new URL(db.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const pool = createPool({ connectionString: url.toString(), maxConnections: 1, statementTimeoutMs: 500 });
    try {
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      proxy.freeze();
      await expect(pool.query('SELECT 1')).rejects.toBeInstanceOf(StatementTimeoutError);
      proxy.thaw();
      const next = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(next.rows[0]!.pid).not.toBe(rows[0]!.pid);
    } finally {
      await pool.end();
      await proxy.close();
    }
  });

  it('through kysely too: the silent connection leaves the pool, so a caller queued behind it gets a fresh one', async () => {
    const proxy = await startTcpProxy(new URL(db.url).hostname, Number(new URL(db.url).port || 5432));
    const url = new URL(db.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const pool = createPool({ connectionString: url.toString(), maxConnections: 1, statementTimeoutMs: 500 });
    const kdb = createDb(pool);
    const pid = async () =>
      (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(kdb)).rows[0]!.pid;
    try {
      const first = await pid();
      // Only the connection open now goes silent; the pool's next one talks.
      proxy.freeze('open');
      // The pool holds one connection: the second call waits for it while the first times out.
      const [timedOut, queued] = await Promise.allSettled([pid(), pid()]);
      expect(timedOut.status === 'rejected' && timedOut.reason).toBeInstanceOf(StatementTimeoutError);
      expect(queued.status === 'fulfilled' && queued.value).not.toBe(first);
      expect(queued.status).toBe('fulfilled');
    } finally {
      await kdb.destroy();
      await proxy.close();
    }
  });

  it('times out a statement that runs too long, but never VACUUM or ANALYZE', async () => {
    const pool = createPool({ connectionString: db.url, maxConnections: 1, statementTimeoutMs: 300 });
    try {
      // Postgres cancels it itself, before the client would give up (57014).
      await expect(pool.query('SELECT pg_sleep(2)')).rejects.toMatchObject({ code: '57014' });
      await pool.query('CREATE TABLE IF NOT EXISTS timeout_probe (n int)');
      // Held past the timeout by a lock VACUUM must wait for: still answered, not dropped.
      const holder = await db.pool.connect();
      await holder.query('BEGIN; LOCK TABLE timeout_probe IN SHARE UPDATE EXCLUSIVE MODE');
      const vacuum = pool.query('VACUUM timeout_probe');
      await new Promise((resolve) => setTimeout(resolve, 600));
      await holder.query('COMMIT');
      holder.release();
      await expect(vacuum).resolves.toBeDefined();
      // And the session's timeout is back for what follows on that connection.
      await expect(pool.query('SELECT pg_sleep(2)')).rejects.toMatchObject({ code: '57014' });
    } finally {
      await pool.end();
    }
  });

  // Found in review: the timeout was the client's alone. A statement waiting on a lock went on
  // waiting in Postgres after its caller had given up (holding its backend, and whatever locks it
  // had taken), and callers' retries stacked more of them.
  it('has Postgres end a statement stuck behind a lock, rolled back', async () => {
    await db.pool.query('CREATE TABLE IF NOT EXISTS lock_probe (id int PRIMARY KEY, n int)');
    await db.pool.query('INSERT INTO lock_probe VALUES (1, 0) ON CONFLICT DO NOTHING');
    const pool = createPool({ connectionString: db.url, maxConnections: 1, statementTimeoutMs: 500 });
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN; SELECT * FROM lock_probe WHERE id = 1 FOR UPDATE');
      const stuck = await pool
        .query('UPDATE lock_probe SET n = n + 1 WHERE id = 1')
        .catch((err: unknown) => err);
      expect(stuck).toMatchObject({ code: '57014' });
      expect(isStoreUnavailable(stuck)).toBe(true);
      // Nothing of it waits on in Postgres.
      const waiting = await db.pool.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'UPDATE lock_probe%' AND state = 'active'",
      );
      expect(waiting.rows[0]).toEqual({ n: 0 });
      await holder.query('COMMIT');
      expect((await pool.query('SELECT n FROM lock_probe WHERE id = 1')).rows).toEqual([{ n: 0 }]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
      await pool.end();
    }
  });

  it('has Postgres end a transaction left open between statements, releasing its locks', async () => {
    await db.pool.query('CREATE TABLE IF NOT EXISTS idle_probe (id int PRIMARY KEY, n int)');
    await db.pool.query('INSERT INTO idle_probe VALUES (1, 0) ON CONFLICT DO NOTHING');
    const pool = createPool({ connectionString: db.url, maxConnections: 1, statementTimeoutMs: 300 });
    const frozen = await pool.connect();
    try {
      // A process frozen mid-transaction, holding the row it updated.
      await frozen.query('BEGIN; UPDATE idle_probe SET n = 1 WHERE id = 1');
      // Another writer gets the row once Postgres has ended the idle transaction.
      const other = await db.pool.connect();
      try {
        await other.query("SET lock_timeout = '5s'");
        await other.query('UPDATE idle_probe SET n = 2 WHERE id = 1');
      } finally {
        other.release(true);
      }
      await expect(frozen.query('COMMIT')).rejects.toThrow();
      expect((await db.pool.query('SELECT n FROM idle_probe WHERE id = 1')).rows).toEqual([{ n: 2 }]);
    } finally {
      frozen.release(true);
      await pool.end();
    }
  });

  it('fails a call that waits longer than the connect timeout for a busy pool, and serves the next', async () => {
    const pool = createPool({ connectionString: db.url, maxConnections: 1, connectTimeoutMs: 300 });
    const held = await pool.connect();
    await expect(pool.query('SELECT 1')).rejects.toThrow(/timeout/i);
    held.release();
    await expect(pool.query('SELECT 1 AS ok')).resolves.toMatchObject({ rows: [{ ok: 1 }] });
    await pool.end();
  });
});

describe('serverTimeoutOptions', () => {
  it('tells Postgres a tenth less than the client waits, at most a second less, and never 0 (no limit)', () => {
    expect(serverTimeoutOptions(60_000)).toEqual([
      '-c statement_timeout=59000',
      '-c idle_in_transaction_session_timeout=60000',
    ]);
    expect(serverTimeoutOptions(500)[0]).toBe('-c statement_timeout=450');
    expect(serverTimeoutOptions(1)[0]).toBe('-c statement_timeout=1');
    expect(serverTimeoutOptions(0)).toEqual([]);
  });
});
