import type { TaskRecord } from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import { contextMemory } from './build-run-context.ts';
import type { RunnerDeps } from './runner-deps.ts';
import { failRun } from './settle-writes.ts';

/** The agent hooks for a task that ended with no run of the agent to see it end. */
export type EndHook = 'onCanceled' | 'onFailed';

/**
 * Hands the agent's optional `onCanceled` or `onFailed` hook the ended task's ids, its
 * registration's settings and its context memory. Nothing when the agent has no such hook or is
 * no longer registered. Errors are the caller's to log.
 */
export async function tellAgentEnded(
  deps: Pick<RunnerDeps, 'agents' | 'findAgent' | 'store'>,
  record: TaskRecord,
  hook: EndHook,
  log: Logger,
): Promise<void> {
  const registration = await deps.agents.getAgent(record.tenantId, record.agentId);
  const agent = registration ? deps.findAgent(registration.executor) : undefined;
  const call = agent?.[hook];
  if (!registration || !agent || !call) return;
  await call.call(agent, {
    taskId: record.id,
    contextId: record.contextId,
    settings: registration.settings,
    memory: contextMemory(deps.store, record),
    log,
  });
}

/**
 * After the platform failed a task (its last attempt's error, timeout or lapsed lease): the
 * agent's `onFailed`, best effort, its failure logged.
 */
export async function tellAgentFailed(
  deps: Pick<RunnerDeps, 'agents' | 'findAgent' | 'store'>,
  record: TaskRecord,
  log: Logger,
): Promise<void> {
  await tellAgentEnded(deps, record, 'onFailed', log).catch((err: unknown) =>
    log.warn({ err, taskId: record.id }, "the agent's onFailed hook failed"),
  );
}

/**
 * The platform fails the task (failRun), then, once that write landed, tells the agent
 * (tellAgentFailed): its run is over and did not end the task itself, and it may hold work
 * elsewhere. A failed write is logged; the reaper fails the task later.
 */
export async function failRunAndTell(
  deps: Pick<RunnerDeps, 'writer' | 'store' | 'agents' | 'findAgent'>,
  record: TaskRecord,
  safeMessage: string,
  internal: string,
  log: Logger,
  code?: string,
): Promise<void> {
  try {
    await failRun(deps, record, safeMessage, internal, code);
  } catch (err) {
    log.warn({ err, taskId: record.id }, 'could not fail task');
    return;
  }
  await tellAgentFailed(deps, record, log);
}
