import { sql, type RawBuilder } from 'kysely';

/**
 * `now() + ms` computed by Postgres, so every lease and backoff is measured on the database clock
 * that the guards compare against (worker clocks may drift).
 */
export function msFromNow(ms: number): RawBuilder<Date> {
  return sql<Date>`now() + (${ms}::double precision * interval '1 millisecond')`;
}

export function msAgo(ms: number): RawBuilder<Date> {
  return sql<Date>`now() - (${ms}::double precision * interval '1 millisecond')`;
}

export const now = (): RawBuilder<Date> => sql<Date>`now()`;
