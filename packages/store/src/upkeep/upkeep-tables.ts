import { sql } from 'kysely';
import type { Db } from '../db.ts';

export interface UpkeepResult {
  analyzed: string[];
  vacuumed: string[];
}

interface TableActivity {
  name: string;
  reltuples: number;
  n_dead_tup: number;
  n_mod_since_analyze: number;
  autovacuum: boolean;
}

/**
 * Keeps the planner's statistics of the platform's tables current, and vacuums them when nothing
 * else does. Run on a schedule, once per tick across the deployment (the worker's maintenance).
 *
 * Why the platform cares: its hot statements run as named statements with generic plans
 * (prepared-statements.ts), planned once per connection and kept until the statistics of a table
 * they read change. A plan made while a table was empty or tiny ties every index that holds the
 * looked-up columns, and the tie went to a five-column console index: looking a task up by its id
 * then walked the whole tenant's range of that index, and GetTask took 100 ms instead of 3 once
 * the tenant had a few hundred thousand tasks. ANALYZE both corrects the statistics and makes
 * every connection plan those statements again, and with real statistics the primary key wins.
 * Postgres's autovacuum analyzes a table after 50 rows + 10% of it changed, but only if it runs,
 * only every minute, and a database may run without it (as CI's does), so the same rule is applied
 * here on the platform's own tables (the leaf partitions; Postgres plans with theirs).
 *
 * VACUUM (dead rows over 50 + 20%, autovacuum's rule) runs only where autovacuum is off: every
 * task update leaves a dead row and index entries behind, and without vacuum the tables and their
 * indexes grow without bound. Where autovacuum is on it does that job, throttled; a manual VACUUM
 * is not, so the platform stays out of its way.
 */
export async function upkeepTables(db: Db): Promise<UpkeepResult> {
  const result: UpkeepResult = { analyzed: [], vacuumed: [] };
  await db.connection().execute(async (conn) => {
    // One run at a time across the deployment: a run that outlasts its interval must not meet the
    // next tick's on the same tables. The lock is the session's; it goes with the connection.
    const [lock] = (
      await sql<{ held: boolean }>`SELECT pg_try_advisory_lock(${UPKEEP_LOCK}) AS held`.execute(conn)
    ).rows;
    if (!lock?.held) return;
    // Throttled as autovacuum throttles itself (its default cost delay): a VACUUM of a large
    // partition and its indexes then spreads over seconds instead of taking a core at once while
    // the platform serves requests. The setting is the session's, so it is reset before the
    // connection goes back to the pool.
    await sql`SET vacuum_cost_delay = 2`.execute(conn);
    try {
      for (const t of await dueTables(conn)) {
        // SKIP_LOCKED: a table someone holds (autovacuum, a migration) is left to the next tick.
        // Waiting on autovacuum would make Postgres cancel it after deadlock_timeout, and a busy
        // partition would then never finish a vacuum. The name comes from the catalog, quoted by
        // format('%I'); VACUUM and ANALYZE take no parameters.
        const command = t.vacuum
          ? t.analyze
            ? 'VACUUM (SKIP_LOCKED, ANALYZE)'
            : 'VACUUM (SKIP_LOCKED)'
          : 'ANALYZE (SKIP_LOCKED)';
        await sql.raw(`${command} ${t.name}`).execute(conn);
        if (t.analyze) result.analyzed.push(t.name);
        if (t.vacuum) result.vacuumed.push(t.name);
      }
    } finally {
      await sql`RESET vacuum_cost_delay`.execute(conn);
      await sql`SELECT pg_advisory_unlock(${UPKEEP_LOCK})`.execute(conn);
    }
  });
  return result;
}

/** The advisory lock key of the upkeep (any constant no other code of the platform uses). */
const UPKEEP_LOCK = 7_379_657_501;

/** The platform's tables (leaf partitions) over autovacuum's thresholds, and what each needs. */
async function dueTables(db: Db): Promise<Array<{ name: string; analyze: boolean; vacuum: boolean }>> {
  const { rows } = await sql<TableActivity>`
    SELECT format('%I.%I', s.schemaname, s.relname) AS name,
           greatest(c.reltuples, 0)::float8 AS reltuples,
           s.n_dead_tup::float8 AS n_dead_tup,
           s.n_mod_since_analyze::float8 AS n_mod_since_analyze,
           current_setting('autovacuum')::boolean
             AND NOT EXISTS (SELECT 1 FROM unnest(c.reloptions) AS o
                              WHERE o ~* '^autovacuum_enabled=(false|off|no|0|f|n)$') AS autovacuum
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema() AND c.relkind = 'r'`.execute(db);
  return rows.flatMap((t) => {
    const analyze = t.n_mod_since_analyze > 50 + 0.1 * t.reltuples;
    const vacuum = !t.autovacuum && t.n_dead_tup > 50 + 0.2 * t.reltuples;
    return analyze || vacuum ? [{ name: t.name, analyze, vacuum }] : [];
  });
}
