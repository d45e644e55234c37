import { sql } from 'kysely';
import type { Db } from '../db.ts';

/** Outbox depth for the metrics endpoint, all tenants; served by the partial push_deliveries_due index. */
export async function countPendingDeliveries(db: Db): Promise<number> {
  const row = await db
    .selectFrom('push_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', sql.lit('pending'))
    .executeTakeFirstOrThrow();
  return row.n;
}
