import { sql, type ExpressionBuilder } from 'kysely';
import type { Database } from '../database.ts';
import type { Db } from '../db.ts';
import { isTaskId } from '../tasks/task-row.ts';
import type { DeliveryKey } from './outbox-store.ts';

/**
 * A dead delivery goes back to pending with a fresh attempt budget, due now. last_error stays as
 * the record of why it died until the next attempt overwrites it. It is sent even if later events
 * of the task went out meanwhile: receivers order by the event, not by arrival. A dead letter
 * whose event left the log (pruned before retention kept dead letters' events) cannot be sent
 * again: it stays dead and the replay says so, rather than succeeding and being buried again.
 */
export async function replayDeadLetter(db: Db, key: DeliveryKey): Promise<boolean> {
  // Ids come from operators' requests: a malformed one is "nothing to replay", not a cast error.
  if (!isTaskId(key.taskId) || !Number.isInteger(key.seq)) return false;
  const result = await db
    .updateTable('push_deliveries')
    .set(REPLAYED)
    .where('tenant_id', '=', key.tenantId)
    .where('task_id', '=', key.taskId)
    .where('config_id', '=', key.configId)
    .where('seq', '=', key.seq)
    .where('status', '=', 'dead')
    .where(({ exists, selectFrom }) => exists(eventOf(selectFrom)))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** What a replay sets: pending, a fresh attempt budget, due now, unclaimed. */
export const REPLAYED = {
  status: 'pending',
  attempts: 0,
  next_attempt_at: sql<Date>`now()`,
  locked_by: null,
  locked_until: null,
} as const;

/** The delivery's event in the task log (correlated on the row being replayed). */
export function eventOf(selectFrom: ExpressionBuilder<Database, 'push_deliveries'>['selectFrom']) {
  return selectFrom('task_events as e')
    .select(sql.lit(1).as('one'))
    .whereRef('e.tenant_id', '=', 'push_deliveries.tenant_id')
    .whereRef('e.task_id', '=', 'push_deliveries.task_id')
    .whereRef('e.seq', '=', 'push_deliveries.seq');
}
