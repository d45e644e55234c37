import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, runMigrations } from '../src/index.ts';

// STYLE.md rule 3 / issue 2: the migrator is safe when several processes start at once.
const name = `sy_migrate_${randomBytes(5).toString('hex')}`;
const server = () => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = '/postgres';
  return u.toString();
};
const target = () => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${name}`;
  return u.toString();
};

afterAll(async () => {
  const c = new pg.Client({ connectionString: server() });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
});

describe('migrator', () => {
  it('five processes migrating an empty database at once apply each migration exactly once', async () => {
    const admin = new pg.Client({ connectionString: server() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const clients = Array.from({ length: 5 }, () => new pg.Client({ connectionString: target() }));
    await Promise.all(clients.map((c) => c.connect()));
    const results = await Promise.all(clients.map((c) => runMigrations(c)));
    const applied = results.flatMap((r) => r.applied);
    const all = await loadMigrations();
    expect(applied.sort()).toEqual(all.map((m) => m.name).sort());
    const { rows } = await clients[0]!.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM schema_migrations',
    );
    expect(rows[0]!.n).toBe(all.length);
    await Promise.all(clients.map((c) => c.end()));
  });
});
