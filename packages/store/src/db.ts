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
  return new pg.Pool({ connectionString, max: maxConnections, application_name: applicationName });
}

export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
