import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { MarkDeliveredInput } from './outbox-store.ts';

/**
 * Guarded by the claim (locked_by = workerId, still pending): a pusher whose lock lapsed and was
 * taken over gets false and must not act further. The lock's expiry is not checked: a lapsed
 * claim nobody took over still did deliver, and recording it saves a duplicate send.
 */
export async function markDelivered(db: Db, input: MarkDeliveredInput): Promise<boolean> {
  const result = await db
    .updateTable('push_deliveries')
    .set({
      status: 'delivered',
      delivered_at: sql<Date>`now()`,
      last_status: input.status,
      locked_by: null,
      locked_until: null,
    })
    .where('tenant_id', '=', input.tenantId)
    .where('task_id', '=', input.taskId)
    .where('config_id', '=', input.configId)
    .where('seq', '=', input.seq)
    .where('locked_by', '=', input.workerId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
