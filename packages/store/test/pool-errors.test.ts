import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { createPool } from '../src/index.ts';

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

  it('fails a call that waits longer than the connect timeout for a busy pool, and serves the next', async () => {
    const pool = createPool({ connectionString: db.url, maxConnections: 1, connectTimeoutMs: 300 });
    const held = await pool.connect();
    await expect(pool.query('SELECT 1')).rejects.toThrow(/timeout/i);
    held.release();
    await expect(pool.query('SELECT 1 AS ok')).resolves.toMatchObject({ rows: [{ ok: 1 }] });
    await pool.end();
  });
});
