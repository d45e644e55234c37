import { RunEndedError, type ContextMemory } from '@switchyard/agents';
import type { Message } from '@switchyard/protocol';
import type { ClaimResult, TaskRecord, TaskStore } from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import type { AgentRegistration } from '../ports.ts';
import { RunContext } from './run-context.ts';
import type { RunnerDeps } from './runner-deps.ts';
import { leaseOwnerOf } from './lease-keeper.ts';

/** Builds the agent's context from what the claim read (history, artifacts) and its memory. */
export function buildRunContext(
  deps: RunnerDeps,
  { task: record, inputs }: ClaimResult,
  registration: AgentRegistration,
  run: { signal: AbortSignal; stop: (reason: 'canceled' | 'lease-lost') => void; refused: () => boolean },
  log: Logger,
): RunContext {
  const { store } = deps;
  // The claim read the inputs. storedChunks matters not only for retries: a run handed back on
  // shutdown (attempt refunded) also resumes a generation.
  const { history, artifacts, storedChunks, storedArtifactBytes } = inputs;
  const message: Message | undefined = [...history].reverse().find((m) => m.role === 'ROLE_USER');
  if (!message) throw new Error(`task ${record.id} has no user message`);
  // The run's memory writes are fenced like its task writes: refused once the run ended here
  // (canceled, lease lost, abandoned), and in the store once another claim holds the task.
  const memory = contextMemory(store, record, {
    leaseOwner: leaseOwnerOf(record),
    assertOpen: () => ctx.assertOpen(),
  });
  const ctx = new RunContext({
    store,
    writer: deps.writer,
    leaseOwner: leaseOwnerOf(record),
    record,
    snapshot: {
      id: record.id,
      contextId: record.contextId,
      state: record.state,
      history,
      artifacts,
      ...(record.metadata ? { metadata: record.metadata } : {}),
      attempt: record.attempts,
    },
    message,
    settings: registration.settings,
    acceptedOutputModes: record.acceptedOutputModes ?? undefined,
    memory,
    log,
    signal: run.signal,
    stop: run.stop,
    refused: run.refused,
    storedChunks,
    storedArtifactBytes,
    maxArtifactBytes: deps.config.taskMaxArtifactBytes,
  });
  return ctx;
}

/**
 * The agent's memory for the task's conversation: shared by the agent's tasks in that context
 * that the same principal sent, never by another principal's tasks that reuse the contextId.
 * With `run`, a write is the run's (fenced by its lease, RunEndedError once it lost the task);
 * without, it is unfenced (an agent's clean-up after a cancel, when no run holds the task).
 */
export function contextMemory(
  store: TaskStore,
  record: TaskRecord,
  run?: { leaseOwner: string; assertOpen: () => void },
): ContextMemory {
  const memoryScope = {
    tenantId: record.tenantId,
    agentId: record.agentId,
    owner: record.owner,
    contextId: record.contextId,
  };
  return {
    get: async <T>(key: string) => (await store.getMemory(memoryScope, key)) as T | undefined,
    set: async (key, value) => {
      if (!run) return store.setMemory(memoryScope, key, value);
      run.assertOpen();
      const fence = { taskId: record.id, leaseOwner: run.leaseOwner };
      if (!(await store.setRunMemory(memoryScope, fence, key, value))) throw new RunEndedError('lease-lost');
    },
  };
}
