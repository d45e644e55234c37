import { sql } from 'kysely';
import type { Db } from '../db.ts';

/**
 * One batch of push deliveries delivered before `cutoff` (by the partial index
 * push_deliveries_done_age). Pending and dead rows are kept: they go with their task.
 *
 * Read oldest first, so the scan of that index stops at the batch's end instead of visiting every
 * expired entry to pick any batchSize of them (a run's cost grew with the square of the expired
 * count); then deleted by key (delete-expired-idempotency-keys.ts says why).
 */
export async function deleteDeliveredPushes(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const batch = await db
    .selectFrom('push_deliveries')
    .select(['tenant_id', 'task_id', 'config_id', 'seq'])
    // A literal, not a parameter, so the partial index always applies.
    .where('status', '=', sql.lit('delivered'))
    .where('delivered_at', '<', cutoff)
    .orderBy('delivered_at')
    .limit(batchSize)
    .execute();
  if (batch.length === 0) return 0;
  const result = await db
    .deleteFrom('push_deliveries')
    .where(
      sql<boolean>`(tenant_id, task_id, config_id, seq) IN (SELECT * FROM unnest(
        ${batch.map((d) => d.tenant_id)}::text[], ${batch.map((d) => d.task_id)}::uuid[],
        ${batch.map((d) => d.config_id)}::text[], ${batch.map((d) => d.seq)}::integer[]))`,
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
