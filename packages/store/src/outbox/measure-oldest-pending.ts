import { sql } from 'kysely';
import type { Db } from '../db.ts';

/**
 * Age in ms of the oldest pending delivery (by creation, so a delivery stuck in retries counts
 * from its event), measured on the database clock; 0 when nothing is pending.
 */
export async function measureOldestPendingAgeMs(db: Db): Promise<number> {
  const row = await db
    .selectFrom('push_deliveries')
    .select(
      sql<number>`coalesce((extract(epoch from now() - min(created_at)) * 1000)::bigint, 0)`.as('age_ms'),
    )
    .where('status', '=', sql.lit('pending'))
    .executeTakeFirstOrThrow();
  return row.age_ms;
}
