import { AgentFailure, RunEndedError } from '@switchyard/agents';
import { retryOrFail } from './retry-or-fail.ts';
import type { RunContext } from './run-context.ts';
import type { RunnerDeps } from './runner-deps.ts';

/** Settles a run whose agent threw; true when Postgres going away was the cause (to hand back). */
export async function settleRunError(
  deps: RunnerDeps,
  ctx: RunContext,
  err: unknown,
  /** The run was stopped (canceled, lease lost, shutdown): the runner logs and settles that. */
  stopped: boolean,
  log: RunnerDeps['log'],
): Promise<boolean> {
  if (stopped) return false;
  if (err instanceof RunEndedError) {
    log.info({ reason: err.reason }, 'agent run stopped');
    return false;
  }
  if (ctx.ended) {
    log.warn({ err }, 'agent threw after ending its task');
    return false;
  }
  // Its last write found Postgres away and it gave up: the platform's outage, not the agent's
  // failure (an agent's own connection errors do not count: only the run's store writes set it).
  if (ctx.storeWasAway && !ctx.mustFail) {
    log.warn({ err }, 'agent run failed: Postgres was away; the task goes back without spending an attempt');
    ctx.close('lease-lost');
    return true;
  }
  // Past the artifact limit, but the failure's write failed too (Postgres away) and the agent
  // let that error out: no retry, which would stream into the same limit; the failure again.
  if (ctx.mustFail) {
    await ctx
      .complete()
      .catch((e: unknown) => log.warn({ err: e }, 'could not fail the task at its artifact limit'));
    return false;
  }
  log.error({ err }, 'agent run failed');
  await retryOrFail(
    deps,
    ctx.current,
    err instanceof Error ? err.message.slice(0, 500) : 'non-error thrown',
    log,
    err instanceof AgentFailure ? err : undefined,
  );
  return false;
}
