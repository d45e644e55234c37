import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isTaskId } from '../tasks/task-row.ts';
import type { DeliveryKey } from './outbox-store.ts';

/**
 * A dead delivery goes back to pending with a fresh attempt budget, due now. last_error stays as
 * the record of why it died until the next attempt overwrites it. It is sent even if later events
 * of the task went out meanwhile: receivers order by the event, not by arrival.
 */
export async function replayDeadLetter(db: Db, key: DeliveryKey): Promise<boolean> {
  // Ids come from operators' requests: a malformed one is "nothing to replay", not a cast error.
  if (!isTaskId(key.taskId) || !Number.isInteger(key.seq)) return false;
  const result = await db
    .updateTable('push_deliveries')
    .set({
      status: 'pending',
      attempts: 0,
      next_attempt_at: sql<Date>`now()`,
      locked_by: null,
      locked_until: null,
    })
    .where('tenant_id', '=', key.tenantId)
    .where('task_id', '=', key.taskId)
    .where('config_id', '=', key.configId)
    .where('seq', '=', key.seq)
    .where('status', '=', 'dead')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
