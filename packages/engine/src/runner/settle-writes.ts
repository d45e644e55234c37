import { TaskState } from '@switchyard/protocol';
import { isConflict, type ChangeTaskInput, type ClaimResult, type TaskRecord } from '@switchyard/store';
import { statusEvent } from '../task-events.ts';
import { leaseOwnerOf } from './lease-keeper.ts';
import type { RunnerDeps } from './runner-deps.ts';

/**
 * Status-message metadata naming the A2A error behind a FAILED task (AgentFailure.code), so a
 * blocking request can answer with that error (e.g. InvalidAgentResponse) rather than the task.
 */
export const FAILURE_CODE_METADATA_KEY = 'switchyard.failureCode';

/** Fails the run's task with a safe status message (and the A2A error's code, when one is known). */
export async function failRun(
  deps: Pick<RunnerDeps, 'writer' | 'store'>,
  record: ClaimResult['task'],
  safeMessage: string,
  internal: string,
  code?: string,
): Promise<void> {
  const message = {
    messageId: crypto.randomUUID(),
    role: 'ROLE_AGENT' as const,
    contextId: record.contextId,
    taskId: record.id,
    parts: [{ text: safeMessage }],
    ...(code ? { metadata: { [FAILURE_CODE_METADATA_KEY]: code } } : {}),
  };
  await settleWrite(deps, record, (current) => ({
    tenantId: current.tenantId,
    taskId: current.id,
    expectedVersion: current.version,
    fromStates: [TaskState.WORKING],
    leaseOwner: leaseOwnerOf(current),
    patch: {
      state: TaskState.FAILED,
      statusMessage: message,
      clearLease: true,
      lastError: internal,
      ...(current.visibility === 'pending' ? { visibility: 'task' } : {}),
    },
    event: statusEvent(current, TaskState.FAILED, message),
  }));
}

/**
 * One of the runner's settle writes (retry scheduling, failing), built from the record it
 * starts from. The run's record can be behind the row without the run having lost anything: a
 * gateway made the task visible, the upgrade's answer came late, a chunk's write committed but
 * its reply was lost. So on a conflict it re-reads and writes again while the task is still
 * WORKING under this run's lease, as the agent's own writes do (run-context.ts writeOnce); a
 * terminal task or another lease's run is never written over (the CAS refuses them anyway):
 * then the conflict is thrown and the reaper or the new owner takes it from there.
 */
export async function settleWrite(
  deps: Pick<RunnerDeps, 'writer' | 'store'>,
  record: TaskRecord,
  build: (current: TaskRecord) => ChangeTaskInput,
): Promise<TaskRecord> {
  const leaseOwner = leaseOwnerOf(record);
  let current = record;
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.writer.change(build(current));
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
      const fresh = await deps.store.getTaskRecord(record.tenantId, record.id);
      if (fresh?.state !== TaskState.WORKING || fresh.leaseOwner !== leaseOwner) throw err;
      current = fresh;
    }
  }
}
