import type { Db } from '../db.ts';

/**
 * One batch of messageIds past the retry horizon (oldest first, by idempotency_keys_age). After
 * this a resend of the same messageId is a new request.
 */
export async function deleteExpiredIdempotencyKeys(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where((eb) =>
      eb(
        eb.refTuple('tenant_id', 'message_id'),
        'in',
        eb
          .selectFrom('idempotency_keys as k')
          .select(['k.tenant_id', 'k.message_id'])
          .where('k.created_at', '<', cutoff)
          .limit(batchSize)
          .$asTuple('tenant_id', 'message_id'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
