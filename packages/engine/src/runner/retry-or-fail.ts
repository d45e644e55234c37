import type { AgentFailure } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import type { ClaimResult } from '@switchyard/store';
import { injectTraceContext, recordActiveError } from '@switchyard/telemetry';
import { retryDelayMs } from '../engine-config.ts';
import { statusEvent } from '../task-events.ts';
import { failRunAndTell } from './agent-end-hooks.ts';
import { leaseOwnerOf } from './lease-keeper.ts';
import type { RunnerDeps } from './runner-deps.ts';
import { settleWrite } from './settle-writes.ts';

/** The safe status text of a failed run: the real error goes to logs and traces only. */
export const FAILED_MESSAGE = 'The agent failed while working on this task.';

/** An error (or a timeout) counts as an attempt: retry with backoff, or fail after the last one. */
export async function retryOrFail(
  deps: RunnerDeps,
  record: ClaimResult['task'],
  message: string,
  log: RunnerDeps['log'],
  failure?: AgentFailure,
): Promise<void> {
  // The run failed, though nothing is thrown through its span: the span says so itself.
  recordActiveError(failure ?? new Error(message));
  if (record.attempts >= deps.config.maxAttempts) {
    const safeMessage = failure?.safeMessage ?? FAILED_MESSAGE;
    return failRunAndTell(deps, record, safeMessage, message, log, failure?.code);
  }
  const delayMs = retryDelayMs(deps.config, record.attempts);
  // The job's delay is only when to look again; the claim checks run_after on Postgres's clock.
  const runAfter = new Date(Date.now() + delayMs);
  try {
    const retried = await settleWrite(deps, record, (current) => ({
      tenantId: current.tenantId,
      taskId: current.id,
      expectedVersion: current.version,
      fromStates: [TaskState.WORKING],
      leaseOwner: leaseOwnerOf(current),
      patch: { clearLease: true, runAfterMs: delayMs, lastError: message },
      // The status does not change, so neither does its time (the row keeps it too).
      event: statusEvent(current, TaskState.WORKING, current.statusMessage, current.statusTimestamp),
    }));
    await deps.dispatcher.enqueue({
      tenantId: record.tenantId,
      taskId: record.id,
      version: retried.version,
      attempts: retried.attempts,
      runAfter,
      // The next attempt's run joins this one's trace (this runs inside the run-task span).
      ...injectTraceContext(),
    });
  } catch (e) {
    // Lost the lease or the task moved on: the reaper or the new owner takes it from here.
    log.warn({ err: e }, 'could not schedule the retry');
  }
}
