import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, startTcpProxy, type TestDatabase } from '../src/index.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('startTcpProxy', () => {
  it('freezes a connection without closing it, then lets the waiting statement through on thaw', async () => {
    const target = new URL(db.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const url = new URL(db.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      proxy.freeze();
      let answered = false;
      const query = client.query<{ ok: number }>('SELECT 1 AS ok').then((r) => {
        answered = true;
        return r;
      });
      // Frozen, not cut: no answer and no error while it lasts.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBe(false);
      proxy.thaw();
      await expect(query).resolves.toMatchObject({ rows: [{ ok: 1 }] });
    } finally {
      await client.end();
      await proxy.close();
    }
  });
});
