import { TaskState } from '@switchyard/protocol';
import type { RunTaskJob } from '@switchyard/queue';
import type { TaskRecord } from '@switchyard/store';
import { injectTraceContext } from '@switchyard/telemetry';
import { noticeUnheardCancel } from './cancel-notices.ts';
import type { RunnerDeps } from './runner-deps.ts';

/**
 * The claim was refused. A canceled task that still holds the lease its run had may owe its agent
 * the cancel notice (cancel-notices.ts); a live one may not be due yet.
 */
export async function afterRefusedClaim(deps: RunnerDeps, job: RunTaskJob): Promise<void> {
  const record = await deps.store.getTaskRecord(job.tenantId, job.taskId);
  if (!record) return;
  const { leaseOwner } = record;
  if (record.state === TaskState.CANCELED && leaseOwner)
    return noticeUnheardCancel(deps, { ...record, leaseOwner });
  return deferIfEarly(deps, record);
}

/**
 * For a live task nobody holds, the only reason for a refused claim is that it is not due yet
 * (retry backoff) by Postgres's clock, which the claim reads: schedule the dispatch again. Not by
 * comparing run_after with this process's clock: one running ahead of Postgres's took the task
 * for due, dropped the dispatch, and left it to the reaper (found in review). A second at least,
 * so a clock far ahead costs one claim a second until Postgres's catches up; a fresh job id
 * (nonce), since this very job may carry the id a plain re-enqueue would. In the run's trace.
 */
async function deferIfEarly(deps: RunnerDeps, record: TaskRecord): Promise<void> {
  if (record.leaseOwner) return;
  if (record.state !== TaskState.SUBMITTED && record.state !== TaskState.WORKING) return;
  const now = Date.now();
  await deps.dispatcher.enqueue({
    tenantId: record.tenantId,
    taskId: record.id,
    version: record.version,
    attempts: record.attempts,
    runAfter: new Date(Math.max(record.runAfter.getTime(), now + 1000)),
    nonce: `e${now}`,
    ...injectTraceContext(),
  });
}
