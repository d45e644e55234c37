import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { createDb, createPool } from '../src/index.ts';
import { preparedStatementPolicy } from '../src/prepared-statements.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('preparedStatementPolicy', () => {
  it('names a text from its second use, with a stable name, and never more than the limit', () => {
    const policy = preparedStatementPolicy(2);
    expect(policy.nameFor('select 1')).toBeUndefined();
    const name = policy.nameFor('select 1');
    expect(name).toMatch(/^sy_[0-9a-f]{20}$/);
    expect(policy.nameFor('select 1')).toBe(name);
    policy.nameFor('select 2');
    expect(policy.nameFor('select 2')).toMatch(/^sy_/);
    policy.nameFor('select 3');
    expect(policy.nameFor('select 3')).toBeUndefined();
    expect(policy.nameFor('select 2')).not.toBe(name);
  });

  it('a limit of 0 names nothing; a forgotten text is never named again', () => {
    const off = preparedStatementPolicy(0);
    off.nameFor('select 1');
    expect(off.nameFor('select 1')).toBeUndefined();
    const policy = preparedStatementPolicy(5);
    policy.nameFor('select 1');
    expect(policy.nameFor('select 1')).toBeDefined();
    policy.forget('select 1');
    expect(policy.nameFor('select 1')).toBeUndefined();
    expect(policy.nameFor('select 1')).toBeUndefined();
  });
});

describe('createPool with prepared statements (real Postgres)', () => {
  it('runs a repeated kysely statement as a named prepared statement with the same results', async () => {
    const pool = createPool({ connectionString: db.url, maxConnections: 1 });
    const kdb = createDb(pool);
    const read = (n: number) =>
      kdb
        .selectFrom('tenants')
        .select((eb) => eb.val(n).as('n'))
        .limit(1)
        .execute();
    const one = (n: number) =>
      kdb
        .selectNoFrom((eb) => eb.val(n).as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
    expect(await one(1)).toBe(1);
    expect(await one(2)).toBe(2);
    expect(await one(3)).toBe(3);
    await read(1);
    const { rows } = await pool.query<{ name: string; statement: string }>(
      'select name, statement from pg_prepared_statements',
    );
    expect(rows.map((r) => r.name)).toHaveLength(1);
    expect(rows[0]!.name).toMatch(/^sy_/);
    expect(rows[0]!.statement).toContain('select $1 as "n"');
    // Planned once per connection: generic plans for the named statements.
    const mode = await pool.query<{ mode: string }>(`select current_setting('plan_cache_mode') as mode`);
    expect(mode.rows[0]!.mode).toBe('force_generic_plan');
    // And no JIT: a generic plan's cost estimate over a big table made Postgres compile it with
    // LLVM at every execution (db.ts).
    const jit = await pool.query<{ jit: string }>(`select current_setting('jit') as jit`);
    expect(jit.rows[0]!.jit).toBe('off');
    await kdb.destroy();
  });

  it('a plan made stale by a schema change fails once, then the text runs unnamed', async () => {
    const pool = createPool({ connectionString: db.url, maxConnections: 1 });
    await pool.query('create table prep_probe (a int)');
    await pool.query('insert into prep_probe values (1)');
    const kdb = createDb(pool);
    const all = () =>
      kdb
        .selectFrom('prep_probe' as never)
        .selectAll()
        .execute();
    await all();
    await all();
    await pool.query('alter table prep_probe add column b int');
    await expect(all()).rejects.toMatchObject({ code: '0A000' });
    expect(await all()).toEqual([{ a: 1, b: null }]);
    await pool.query('drop table prep_probe');
    await kdb.destroy();
  });
});
