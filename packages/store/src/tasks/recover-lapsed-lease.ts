import { TaskState, type Message, type StreamResponse } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import type { RecoverOutcome, TaskRecord } from '../task-store.ts';
import { appendEvent } from './append-event.ts';
import { msFromNow, now } from './sql-time.ts';
import { statusAfterPrevious, withStatusTime } from './status-time.ts';
import { isTaskId, jsonb, toTaskRecord } from './task-row.ts';

const LIVE = [TaskState.SUBMITTED, TaskState.WORKING];

export interface RecoverLapsedLeaseInput {
  tenantId: string;
  taskId: string;
  leaseOwner: string;
  maxAttempts: number;
  backoffMs: (attempts: number) => number;
  failEvent: (task: TaskRecord) => { statusMessage: Message; event: StreamResponse };
}

/**
 * The reaper's move for one lapsed lease: requeue with backoff, or fail the task once it has used
 * its attempts. Each is one UPDATE guarded on the same lapsed lease, so of two reapers racing on
 * it exactly one acts and the other is 'skipped'; a worker that renewed in time wins too.
 */
export async function recoverLapsedLease(db: Db, input: RecoverLapsedLeaseInput): Promise<RecoverOutcome> {
  if (!isTaskId(input.taskId)) return { outcome: 'skipped' };
  return db.transaction().execute(async (tx): Promise<RecoverOutcome> => {
    const seen = await tx
      .selectFrom('tasks')
      .selectAll()
      .where('tenant_id', '=', input.tenantId)
      .where('id', '=', input.taskId)
      .executeTakeFirst();
    if (!seen || seen.lease_owner !== input.leaseOwner) return { outcome: 'skipped' };

    const guarded = tx
      .updateTable('tasks')
      .where('tenant_id', '=', input.tenantId)
      .where('id', '=', input.taskId)
      .where('state', 'in', LIVE)
      .where('lease_owner', '=', input.leaseOwner)
      .where('lease_expires_at', '<', now());

    if (seen.attempts < input.maxAttempts) {
      const row = await guarded
        .set({
          lease_owner: null,
          lease_expires_at: null,
          run_after: msFromNow(input.backoffMs(seen.attempts)),
          updated_at: now(),
        })
        .returningAll()
        .executeTakeFirst();
      return row
        ? { outcome: 'requeued', runAfter: row.run_after, task: toTaskRecord(row) }
        : { outcome: 'skipped' };
    }

    // Failing is a task change: guard on the version the fail event was built from as well.
    const { statusMessage, event } = input.failEvent(toTaskRecord(seen));
    const row = await guarded
      .where('version', '=', seen.version)
      .set((eb) => ({
        state: TaskState.FAILED,
        status_message: jsonb(statusMessage),
        status_timestamp: statusAfterPrevious(),
        lease_owner: null,
        lease_expires_at: null,
        last_error: 'lease expired',
        // A request still pending (its quick-reply window open when the worker died) becomes a
        // visible Task, as the runner's own failure makes it: GetTask and webhooks see FAILED.
        visibility: seen.visibility === 'pending' ? 'task' : seen.visibility,
        version: eb('version', '+', 1),
        updated_at: now(),
      }))
      .returningAll()
      .executeTakeFirst();
    if (!row) return { outcome: 'skipped' };
    await appendEvent(tx, {
      tenantId: row.tenant_id,
      taskId: row.id,
      seq: row.version,
      // The FAILED status's time is the row's (status-time.ts).
      event: withStatusTime(event, row.status_timestamp),
      visibility: row.visibility,
    });
    return { outcome: 'failed', task: toTaskRecord(row) };
  });
}
