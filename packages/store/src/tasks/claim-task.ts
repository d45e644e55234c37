import { formatTimestamp, TaskState, type StreamResponse } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import type { ClaimInput, ClaimResult } from '../task-store.ts';
import { appendEvent } from './append-event.ts';
import { msFromNow, now } from './sql-time.ts';
import { isTaskId, toTaskRecord } from './task-row.ts';

const LIVE = [TaskState.SUBMITTED, TaskState.WORKING];

/**
 * Leases a live, due, unleased (or lapsed) task to `workerId` in one guarded UPDATE
 * (ARCHITECTURE.md §3 rule 4). A SUBMITTED task becomes WORKING with a new version and a
 * statusUpdate event; re-claiming a WORKING task (after a lapsed lease) changes no version, so the
 * previous owner's next CAS fails on lease_owner instead. Null when the guard does not hold.
 *
 * `prev` locks the row and reads its state before the UPDATE: Postgres 15 has no RETURNING old.*,
 * and the lock makes prev.state the state of exactly the row version the UPDATE re-checks.
 */
export async function claimTask(db: Db, input: ClaimInput): Promise<ClaimResult | null> {
  if (!isTaskId(input.taskId)) return null;
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .with('prev', (qb) =>
        qb
          .selectFrom('tasks')
          .select('state as prev_state')
          .where('tenant_id', '=', input.tenantId)
          .where('id', '=', input.taskId)
          .forUpdate(),
      )
      .updateTable('tasks')
      .from('prev')
      .set((eb) => {
        const wasSubmitted = eb('prev.prev_state', '=', TaskState.SUBMITTED);
        return {
          state: TaskState.WORKING,
          version: eb
            .case()
            .when(wasSubmitted)
            .then(eb('tasks.version', '+', 1))
            .else(eb.ref('tasks.version'))
            .end(),
          status_timestamp: eb
            .case()
            .when(wasSubmitted)
            .then(now())
            .else(eb.ref('tasks.status_timestamp'))
            .end(),
          lease_owner: input.workerId,
          lease_expires_at: msFromNow(input.leaseMs),
          attempts: eb('tasks.attempts', '+', 1),
          updated_at: now(),
        };
      })
      .where('tasks.tenant_id', '=', input.tenantId)
      .where('tasks.id', '=', input.taskId)
      .where('tasks.state', 'in', LIVE)
      .where((eb) => eb.or([eb('tasks.lease_owner', 'is', null), eb('tasks.lease_expires_at', '<', now())]))
      .where('tasks.run_after', '<=', now())
      .returningAll('tasks')
      .returning('prev.prev_state')
      .executeTakeFirst();
    if (!row) return null;

    const { prev_state, ...taskRow } = row;
    const task = toTaskRecord(taskRow);
    const movedToWorking = prev_state === TaskState.SUBMITTED;
    if (movedToWorking) {
      const event: StreamResponse = {
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          status: { state: TaskState.WORKING, timestamp: formatTimestamp(task.statusTimestamp) },
        },
      };
      await appendEvent(tx, {
        tenantId: task.tenantId,
        taskId: task.id,
        seq: task.version,
        event,
        visibility: task.visibility,
      });
    }
    return { task, movedToWorking };
  });
}
