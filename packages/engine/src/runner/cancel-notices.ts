import { randomUUID } from 'node:crypto';
import { TaskState } from '@switchyard/protocol';
import type { TaskCanceledJob } from '@switchyard/queue';
import type { TaskRecord } from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import { unheardAfterMs, unheardCancelCheck } from '../unheard-cancel.ts';
import { tellAgentEnded } from './agent-end-hooks.ts';
import type { RunnerDeps } from './runner-deps.ts';

/**
 * An agent hears of a cancel in one of two ways: the run holding the task's lease aborts its
 * signal, or, when no run hears it, a worker calls the agent's optional onCanceled hook. A cancel keeps
 * the lease the run held (task-service.ts cancelTask), and the run releases it once it has stopped
 * its agent for the cancel (releaseHeardCancel). A lease still there after it lapsed means the run
 * never heard (its worker died or froze), and onCanceled is called instead (noticeUnheardCancel).
 *
 * The notice is at least once and best effort. A worker that dies while telling the agent leaves
 * its own lease, which lapses; BullMQ gives the job it was running back when its lock lapses, and
 * that dispatch tells the agent again. An error from the agent or from loading it is logged, never
 * retried. A worker that was frozen, not dead, aborts its agent when it resumes, after the notice:
 * the agent then cleans up twice, so onCanceled must be idempotent.
 *
 * The row holds the debt (the kept lease); the dispatches that settle it are Redis jobs. Should
 * Redis lose them (a flush), the lease stays as the record of an agent never told, and the
 * reaper's pass over unheard cancels (reaper.ts, findUnheardCancels) dispatches the check again.
 */

const CLEAN_UP_FAILED = 'the agent could not clean up after the cancel';

/**
 * A task no run was working on was canceled (TaskCanceledJob: waiting for input or auth, queued,
 * backing off, or its dead worker's lease reaped): tell the agent.
 */
export async function noticeCanceled(deps: RunnerDeps, job: TaskCanceledJob): Promise<void> {
  const log = deps.log.child({ tenantId: job.tenantId, taskId: job.taskId });
  try {
    const record = await deps.store.getTaskRecord(job.tenantId, job.taskId);
    if (record?.state === TaskState.CANCELED) await tellAgentEnded(deps, record, 'onCanceled', log);
  } catch (err) {
    log.warn({ err }, CLEAN_UP_FAILED);
  }
}

/**
 * A dispatch found the task CANCELED and still leased: the lease its run held at the cancel (or a
 * notifier's). Once it counts as never released the notice is this worker's to give, under a lease
 * of its own; before that, another dispatch looks again when it is due.
 */
export async function noticeUnheardCancel(
  deps: RunnerDeps,
  record: TaskRecord & { leaseOwner: string },
): Promise<void> {
  const { tenantId, id: taskId } = record;
  const notifier = `${deps.workerId}/${randomUUID().slice(0, 13)}`;
  const taken = await deps.store.takeCancelNotice({
    tenantId,
    taskId,
    leaseOwner: record.leaseOwner,
    notifier,
    leaseMs: deps.config.leaseMs,
    unheardAfterMs: unheardAfterMs(deps.config),
  });
  if (!taken) return lookAgainWhenDue(deps, record);
  const log = deps.log.child({ tenantId, taskId });
  log.warn({ leaseOwner: record.leaseOwner }, 'the run never heard the cancel; telling the agent');
  try {
    await tellAgentEnded(deps, record, 'onCanceled', log);
  } catch (err) {
    log.warn({ err }, CLEAN_UP_FAILED);
  } finally {
    await deps.store
      .releaseLease({ tenantId, taskId, leaseOwner: notifier, refundAttempt: false })
      .catch((err: unknown) => log.warn({ err }, 'could not release the cancel notice’s lease'));
  }
}

/**
 * The run stopped its agent for the cancel: it gives back the lease the cancel kept, so no notice
 * follows. Nothing happens when it no longer holds it (a notifier took it while the run was frozen).
 */
export async function releaseHeardCancel(deps: RunnerDeps, task: TaskRecord, log: Logger): Promise<void> {
  if (!task.leaseOwner) return;
  await deps.store
    .releaseLease({
      tenantId: task.tenantId,
      taskId: task.id,
      leaseOwner: task.leaseOwner,
      refundAttempt: false,
    })
    .catch((err: unknown) =>
      log.warn({ err }, 'could not release the lease; the agent may hear of the cancel again'),
    );
}

/**
 * The notice was not taken: the lease does not count as never released yet by Postgres's clock (the
 * dead worker's own job given back by BullMQ, a clock ahead of Postgres's), or someone released or
 * took it meanwhile. Only the first needs another look; a fresh job id, since this job's may be it.
 */
async function lookAgainWhenDue(deps: RunnerDeps, seen: TaskRecord): Promise<void> {
  const current = await deps.store.getTaskRecord(seen.tenantId, seen.id);
  if (!current || current.leaseOwner !== seen.leaseOwner) return;
  const now = Date.now();
  await deps.dispatcher.enqueue({
    ...unheardCancelCheck(current, deps.config, now + 1000),
    nonce: `c${now}`,
  });
}
