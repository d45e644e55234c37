import type { Db } from '../db.ts';
import type { MarkFailedInput } from './outbox-store.ts';

const MAX_ERROR_LENGTH = 1000;

/**
 * A failed attempt, guarded like markDelivered. Either back to pending at `nextAttemptAt` (the
 * pusher computes backoff and jitter) or dead. Dead unblocks the later deliveries of the same
 * config: the per-task order only waits on pending rows.
 */
export async function markFailed(db: Db, input: MarkFailedInput): Promise<boolean> {
  const common = {
    last_error: input.error.slice(0, MAX_ERROR_LENGTH),
    last_status: input.status ?? null,
    locked_by: null,
    locked_until: null,
  };
  const result = await db
    .updateTable('push_deliveries')
    .set(input.dead ? { ...common, status: 'dead' } : { ...common, next_attempt_at: input.nextAttemptAt })
    .where('tenant_id', '=', input.tenantId)
    .where('task_id', '=', input.taskId)
    .where('config_id', '=', input.configId)
    .where('seq', '=', input.seq)
    .where('locked_by', '=', input.workerId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
