import { TaskState } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import type { LeaseInput } from '../task-store.ts';
import { msFromNow } from './sql-time.ts';
import { isTaskId } from './task-row.ts';

const LIVE = [TaskState.SUBMITTED, TaskState.WORKING];

/**
 * Extends the run's lease while the task is live. When it fails, the current state comes back
 * too, so the worker can tell "canceled under me" (stop quietly) from "lease lost" (another worker
 * owns it now). Renewal is not a task change: no version, no event.
 */
export async function renewLease(
  db: Db,
  input: LeaseInput,
): Promise<{ ok: boolean; state: TaskState | null }> {
  if (!isTaskId(input.taskId)) return { ok: false, state: null };
  const renewed = await db
    .updateTable('tasks')
    .set({ lease_expires_at: msFromNow(input.leaseMs) })
    .where('tenant_id', '=', input.tenantId)
    .where('id', '=', input.taskId)
    .where('lease_owner', '=', input.leaseOwner)
    .where('state', 'in', LIVE)
    .returning('state')
    .executeTakeFirst();
  if (renewed) return { ok: true, state: renewed.state as TaskState };
  const current = await db
    .selectFrom('tasks')
    .select('state')
    .where('tenant_id', '=', input.tenantId)
    .where('id', '=', input.taskId)
    .executeTakeFirst();
  return { ok: false, state: (current?.state as TaskState | undefined) ?? null };
}
