import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.ts';

export type Db = Kysely<Database>;

// int8 (bigint) counts come back as strings by default; every count here fits in a double.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DbOptions {
  connectionString: string;
  /** Pool size per process; default 10. Keep it small and put PgBouncer in front at scale. */
  maxConnections?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
}

export function createPool({
  connectionString,
  maxConnections = 10,
  applicationName = 'switchyard',
}: DbOptions): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: maxConnections, application_name: applicationName });
  // pg-pool listens for errors only on idle clients. A checked-out client between two statements
  // (a transaction awaiting its next step) that loses its connection (Postgres restarting) emits
  // 'error' with no listener, which crashes the process. The error also fails the client's next
  // query, so the caller still sees it and the pool discards the client on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
