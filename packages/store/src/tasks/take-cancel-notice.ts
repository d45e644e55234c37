import { TaskState } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { msAgo, msFromNow } from './sql-time.ts';
import { isTaskId } from './task-row.ts';

export interface TakeCancelNoticeInput {
  tenantId: string;
  taskId: string;
  /** The lease the canceled task still holds: its run's, or that of a notifier that died. */
  leaseOwner: string;
  /** The notifier's own lease owner, held while it tells the agent and released after. */
  notifier: string;
  /** Length of the notifier's lease. Unit: ms. */
  leaseMs: number;
  /** How long `leaseOwner`'s lease must have lapsed before it counts as never released. Unit: ms. */
  unheardAfterMs: number;
}

/**
 * A cancel keeps the lease a run held on the task, and the run releases it once it has stopped its
 * agent for the cancel. A lease still there long after it lapsed belongs to a run that never heard
 * the cancel (its worker died or froze), so nobody told the agent. This hands that lease to a
 * notifier in one guarded UPDATE, on Postgres's clock: of notifiers racing on it one wins, and a
 * run that released in time wins against all of them. The notifier releases it (releaseLease)
 * once the agent was told; should it die first, its own lease lapses and the next one takes over,
 * so the notice is at-least-once. Like renewLease, not a task change: no version, no event.
 */
export async function takeCancelNotice(db: Db, input: TakeCancelNoticeInput): Promise<boolean> {
  if (!isTaskId(input.taskId)) return false;
  const result = await db
    .updateTable('tasks')
    .set({ lease_owner: input.notifier, lease_expires_at: msFromNow(input.leaseMs) })
    .where('tenant_id', '=', input.tenantId)
    .where('id', '=', input.taskId)
    .where('state', '=', TaskState.CANCELED)
    .where('lease_owner', '=', input.leaseOwner)
    .where('lease_expires_at', '<', msAgo(input.unheardAfterMs))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
