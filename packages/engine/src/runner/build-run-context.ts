import type { ContextMemory } from '@switchyard/agents';
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
  run: { signal: AbortSignal; stop: (reason: 'canceled' | 'lease-lost') => void },
  log: Logger,
): RunContext {
  const { store } = deps;
  // The claim read the inputs. storedChunks matters not only for retries: a run handed back on
  // shutdown (attempt refunded) also resumes a generation.
  const { history, artifacts, storedChunks } = inputs;
  const message: Message | undefined = [...history].reverse().find((m) => m.role === 'ROLE_USER');
  if (!message) throw new Error(`task ${record.id} has no user message`);
  const memory = contextMemory(store, record);
  return new RunContext({
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
    storedChunks,
  });
}

/**
 * The agent's memory for the task's conversation: shared by the agent's tasks in that context
 * that the same principal sent, never by another principal's tasks that reuse the contextId.
 */
export function contextMemory(store: TaskStore, record: TaskRecord): ContextMemory {
  const memoryScope = {
    tenantId: record.tenantId,
    agentId: record.agentId,
    owner: record.owner,
    contextId: record.contextId,
  };
  return {
    get: async <T>(key: string) => (await store.getMemory(memoryScope, key)) as T | undefined,
    set: (key, value) => store.setMemory(memoryScope, key, value),
  };
}
