import { sql } from 'kysely';
import type { Db } from '../db.ts';

/**
 * One batch of push deliveries delivered before `cutoff` (by the partial index
 * push_deliveries_done_age). Pending and dead rows are kept: they go with their task.
 */
export async function deleteDeliveredPushes(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const result = await db
    .deleteFrom('push_deliveries')
    .where((eb) =>
      eb(
        eb.refTuple('tenant_id', 'task_id', 'config_id', 'seq'),
        'in',
        eb
          .selectFrom('push_deliveries as d')
          .select(['d.tenant_id', 'd.task_id', 'd.config_id', 'd.seq'])
          // A literal, not a parameter, so the partial index always applies.
          .where('d.status', '=', sql.lit('delivered'))
          .where('d.delivered_at', '<', cutoff)
          .limit(batchSize)
          .$asTuple('tenant_id', 'task_id', 'config_id', 'seq'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
