import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_MIGRATIONS_DIR, runMigrations } from '../src/index.ts';

// 000006 puts the owner into context memory's key. Memory that existed before it belongs to the
// context's one principal; a context several principals used cannot be attributed.
const name = `sy_migrate_${randomBytes(5).toString('hex')}`;
const url = (db: string) => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${db}`;
  return u.toString();
};
let before = '';

afterAll(async () => {
  const c = new pg.Client({ connectionString: url('postgres') });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
  if (before) await rm(before, { recursive: true });
});

describe('migration 000006 (context memory owner)', () => {
  it("gives existing memory to its context's one principal, and none to a shared context", async () => {
    const admin = new pg.Client({ connectionString: url('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    before = await mkdtemp(join(tmpdir(), 'sy-migrations-'));
    for (const file of await readdir(DEFAULT_MIGRATIONS_DIR)) {
      if (/^00000[1-5]_/.test(file)) await copyFile(join(DEFAULT_MIGRATIONS_DIR, file), join(before, file));
    }
    const c = new pg.Client({ connectionString: url(name) });
    await c.connect();
    try {
      await runMigrations(c, before);
      await c.query(`INSERT INTO tenants (id, name, webhook_secret_enc) VALUES ('t', 't', '\\x00')`);
      const task = (context: string, owner: string) =>
        c.query(
          `INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version,
             status_timestamp) VALUES ('t', gen_random_uuid(), $1, 'a', $2, 'task', 'TASK_STATE_COMPLETED', 1, now())`,
          [context, owner],
        );
      await task('solo', 'alice');
      await task('solo', 'alice');
      await task('shared', 'alice');
      await task('shared', 'bob');
      for (const context of ['solo', 'shared'])
        await c.query(
          `INSERT INTO context_memory (tenant_id, agent_id, context_id, key, value) VALUES ('t', 'a', $1, 'k', '1')`,
          [context],
        );
      await runMigrations(c);
      const { rows } = await c.query<{ context_id: string; owner: string }>(
        'SELECT context_id, owner FROM context_memory ORDER BY context_id',
      );
      expect(rows).toEqual([
        { context_id: 'shared', owner: '' },
        { context_id: 'solo', owner: 'alice' },
      ]);
    } finally {
      await c.end();
    }
  });
});
