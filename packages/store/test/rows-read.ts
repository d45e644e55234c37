import { sql } from 'kysely';
import type { Db } from '../src/db.ts';

/**
 * Rows of the partitions `<table>_p<n>` that `work` reads (sequential and index fetches), from the
 * backend's own counters. Those also hold what earlier transactions of the connection read until
 * the backend reports them (at most once a second, when idle), so the reading is a difference
 * within one transaction on `db`, which should have one connection so that the statements it names
 * run with their generic plans, as on every platform connection (prepared-statements.ts).
 */
export async function rowsRead(db: Db, table: string, work: (trx: Db) => Promise<unknown>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const counted = async () =>
      (
        await sql<{ n: number }>`
          SELECT coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0)::int AS n
            FROM pg_stat_xact_user_tables WHERE relname ~ ${`^${table}_p[0-9]+$`}`.execute(trx)
      ).rows[0]!.n;
    const before = await counted();
    await work(trx);
    return (await counted()) - before;
  });
}
