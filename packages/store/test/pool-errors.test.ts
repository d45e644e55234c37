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
});
