import { TaskState } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { now } from './sql-time.ts';
import { isTaskId } from './task-row.ts';

const LIVE = [TaskState.SUBMITTED, TaskState.WORKING];

export interface ReleaseLeaseInput {
  tenantId: string;
  taskId: string;
  /** The run's lease owner (the claim's `task.leaseOwner`). */
  leaseOwner: string;
  /** Graceful hand-back: the attempt does not count and the task is due again at once. */
  refundAttempt: boolean;
}

/**
 * Clears the lease if `leaseOwner` still holds it; false when it does not (nothing to give back).
 * A hand-back (`refundAttempt`) gives back live work only: a task canceled meanwhile keeps the
 * lease, the mark that its agent never heard the cancel (take-cancel-notice.ts), since a run
 * handed back on shutdown stopped its agent without telling it why.
 */
export async function releaseLease(db: Db, input: ReleaseLeaseInput): Promise<boolean> {
  if (!isTaskId(input.taskId)) return false;
  let release = db
    .updateTable('tasks')
    .set((eb) => ({
      lease_owner: null,
      lease_expires_at: null,
      updated_at: now(),
      ...(input.refundAttempt
        ? { attempts: eb.fn('greatest', [eb('attempts', '-', 1), eb.lit(0)]), run_after: now() }
        : {}),
    }))
    .where('tenant_id', '=', input.tenantId)
    .where('id', '=', input.taskId)
    .where('lease_owner', '=', input.leaseOwner);
  if (input.refundAttempt) release = release.where('state', 'in', LIVE);
  const result = await release.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
