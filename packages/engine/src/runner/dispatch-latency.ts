import type { RunTaskJob } from '@switchyard/queue';
import type { ClaimResult } from '@switchyard/store';
import type { RunnerDeps } from './runner-deps.ts';

/**
 * Records how long a run leaving SUBMITTED waited for a worker since it became due (created or
 * continued). Both times are the database's (run_after, and the claim's updated_at), so worker
 * clocks do not skew it. Not counted: a re-claim after a lapsed lease or a retry (the task stayed
 * WORKING), and a run parked behind its tenant's run cap (the cap held it, not the fleet).
 */
export function recordDispatchLatency(
  deps: Pick<RunnerDeps, 'metrics'>,
  claim: ClaimResult,
  job: RunTaskJob,
): void {
  if (!claim.movedToWorking || job.parkedAt !== undefined) return;
  const waitedMs = claim.task.updatedAt.getTime() - claim.task.runAfter.getTime();
  deps.metrics?.dispatched({ agent: claim.task.agentId }, Math.max(0, waitedMs) / 1000);
}
