import { sql } from 'kysely';
import type { Db } from '../db.ts';

/**
 * One batch of messageIds past the retry horizon (oldest first, by idempotency_keys_age). After
 * this a resend of the same messageId is a new request.
 *
 * The batch is read first and then deleted by its keys, in two statements. As one DELETE ... WHERE
 * key IN (SELECT ... LIMIT n), the planner took the LIMIT parameter for a tenth of the table and
 * joined the subquery by hash against a scan of the whole table, on every batch (260k rows read to
 * delete 1,000); read by key, each row is one primary-key probe.
 */
export async function deleteExpiredIdempotencyKeys(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const batch = await db
    .selectFrom('idempotency_keys')
    .select(['tenant_id', 'message_id'])
    .where('created_at', '<', cutoff)
    .orderBy('created_at')
    .limit(batchSize)
    .execute();
  if (batch.length === 0) return 0;
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(
      sql<boolean>`(tenant_id, message_id) IN (SELECT * FROM unnest(
        ${batch.map((k) => k.tenant_id)}::text[], ${batch.map((k) => k.message_id)}::text[]))`,
    )
    // A key re-created since it was read (a new send reusing the messageId) is not expired.
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
