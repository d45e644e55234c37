import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDb, createPool } from '../src/db.ts';
import { PostgresTaskStore } from '../src/postgres-task-store.ts';
import { upkeepTables } from '../src/upkeep/upkeep-tables.ts';
import { createdTask, newTask, useTaskTestEnv } from './task-fixtures.ts';

const env = useTaskTestEnv();

/** Rows for one tenant, written in one statement; then the session's statistics are sent at once. */
async function insertTasks(tenantId: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: env.testDb.url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
       SELECT $1, gen_random_uuid(), 'c', 'echo', 'alice', 'task', 'TASK_STATE_COMPLETED', 3, now()
         FROM generate_series(1, $2)`,
      [tenantId, count],
    );
    // Statistics reach pg_stat_user_tables when the session reports them (at most once a second).
    await client.query('SELECT pg_stat_force_next_flush()');
  } finally {
    await client.end();
  }
}

describe('upkeepTables', () => {
  it('re-plans a statement planned on an empty table, so a lookup by id uses the primary key', async () => {
    // One connection, named statements with generic plans, as every platform process runs them.
    const texts = new Set<string>();
    const pool = createPool({ connectionString: env.testDb.url, maxConnections: 1 });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: typeof query }).query = (config: unknown, ...rest: unknown[]) => {
        // Runs after the pool's own wrapper (prepared-statements.ts), so it sees the text it names.
        if (typeof config === 'string') texts.add(config);
        return query(config, ...rest);
      };
    });
    try {
      const store = new PostgresTaskStore({ db: createDb(pool) });
      const tenantId = `t-${randomUUID().slice(0, 8)}`;
      const caller = { tenantId, principal: 'alice', admin: false };
      const task = await createdTask(env.store, newTask(tenantId));
      // Planned now, while the table holds one row.
      for (let k = 0; k < 3; k++) expect(await store.getTask(caller, task.id)).not.toBeNull();
      await insertTasks(tenantId, 5000);

      const done = await upkeepTables(env.db);
      expect(done.analyzed.some((name) => /tasks_p\d$/.test(name))).toBe(true);

      expect(await store.getTask(caller, task.id)).not.toBeNull();
      const text = [...texts].find((t) => t.includes('history_json'));
      if (!text) throw new Error('GetTask ran no named statement');
      const name = `sy_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      const client = await pool.connect();
      try {
        // The statement's parameters in order: the history's (tenant, historyLength, byte budget),
        // the artifacts' (tenant), then the row's guards.
        const args = [
          tenantId,
          'null',
          String(4 * 1024 * 1024),
          tenantId,
          tenantId,
          task.id,
          'task',
          'alice',
        ];
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN EXECUTE ${name}(${args.map((a) => (a === 'null' ? 'NULL' : pg.escapeLiteral(a))).join(', ')})`,
        );
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan).toMatch(/Index Scan using tasks_p\d_pkey on tasks_p\d t/);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('vacuums tables autovacuum leaves alone, and leaves unchanged tables alone', async () => {
    // As a database without autovacuum (CI's) has it: here only for the task partitions.
    for (let k = 0; k < 8; k++)
      await env.testDb.pool.query(`ALTER TABLE tasks_p${k} SET (autovacuum_enabled = false)`);
    const tenantId = `t-${randomUUID().slice(0, 8)}`;
    await insertTasks(tenantId, 2000);
    await upkeepTables(env.db);
    // Every row updated twice: 4,000 dead row versions, more than 50 + 20% of the live ones even
    // if the partition also holds the first test's 5,000 rows (tenants hash to partitions).
    const client = new pg.Client({ connectionString: env.testDb.url });
    await client.connect();
    try {
      for (let k = 0; k < 2; k++)
        await client.query(`UPDATE tasks SET updated_at = now() WHERE tenant_id = $1`, [tenantId]);
      await client.query('SELECT pg_stat_force_next_flush()');
    } finally {
      await client.end();
    }
    const done = await upkeepTables(env.db);
    expect(done.vacuumed.some((name) => /tasks_p\d$/.test(name))).toBe(true);
    // Nothing left to do for them (other tables' statistics may still arrive from other sessions).
    const again = await upkeepTables(env.db);
    expect([...again.analyzed, ...again.vacuumed].filter((name) => /tasks_p\d$/.test(name))).toEqual([]);
  });

  it('skips its run while another run holds the upkeep lock', async () => {
    // More than 10% of any partition this file has filled, wherever the tenant hashes.
    await insertTasks(`t-${randomUUID().slice(0, 8)}`, 2000);
    const other = new pg.Client({ connectionString: env.testDb.url });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock(7379657501)');
      expect(await upkeepTables(env.db)).toEqual({ analyzed: [], vacuumed: [] });
      await other.query('SELECT pg_advisory_unlock(7379657501)');
      expect((await upkeepTables(env.db)).analyzed.length).toBeGreaterThan(0);
    } finally {
      await other.end();
    }
  });
});
