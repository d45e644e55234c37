import { TaskState, type Artifact, type Message } from '@switchyard/protocol';
import type { ArtifactChunk, ContextMemory, TaskSnapshot } from '../agent.ts';
import { cloneJson, toJsonObject } from './harness-messages.ts';
import type { HarnessTask } from './harness-types.ts';

/** A task as the harness stores it; mutated only by HarnessTaskStore and the run that owns it. */
export interface StoredTask {
  id: string;
  contextId: string;
  state: TaskState;
  visible: boolean;
  statusMessage?: Message;
  reply?: Message;
  history: Message[];
  artifacts: Map<string, Artifact>;
  /** Every chunk stored per artifact, in order: the basis of the re-run skip rule. */
  chunks: Map<string, ArtifactChunk[]>;
  /**
   * Chunks per artifact stored before this turn (the answer to an input or auth request starts
   * one): as on the platform, a turn's runs skip only the chunks an earlier run of the same turn
   * stored, so a turn that revises an artifact writes it again.
   */
  turnStart: Map<string, number>;
  /** Artifacts whose last chunk arrived; appending to them is an agent bug. */
  closed: Set<string>;
  attempt: number;
  /** The message the current (or last) run answers; a re-run after a crash answers it again. */
  runMessage: Message;
}

/** In-memory tasks with the platform's artifact semantics (append / lastChunk / re-run skip). */
export class HarnessTaskStore {
  #tasks = new Map<string, StoredTask>();

  create(id: string, contextId: string, message: Message): StoredTask {
    const task: StoredTask = {
      id,
      contextId,
      state: TaskState.SUBMITTED,
      visible: false,
      history: [message],
      artifacts: new Map(),
      chunks: new Map(),
      turnStart: new Map(),
      closed: new Set(),
      attempt: 0,
      runMessage: message,
    };
    this.#tasks.set(id, task);
    return task;
  }

  get(taskId: string): StoredTask {
    const task = this.#tasks.get(taskId);
    if (task === undefined) throw new Error(`unknown task ${taskId}`);
    return task;
  }

  /**
   * Stores the `indexInRun`-th chunk this run emitted for the artifact. As on the platform, a chunk
   * whose position a previous run of this turn already filled is skipped, so a re-run after a
   * crash does not duplicate parts (agent.ts, Agent).
   */
  applyChunk(task: StoredTask, chunk: ArtifactChunk, indexInRun: number): 'applied' | 'skipped' {
    const stored = task.chunks.get(chunk.artifactId) ?? [];
    if (indexInRun < storedThisTurn(task, chunk.artifactId)) return 'skipped';
    if (chunk.parts.length === 0)
      throw new Error(`artifact ${chunk.artifactId}: a chunk needs at least one part`);
    const copy = cloneJson(chunk);
    const existing = task.artifacts.get(chunk.artifactId);
    if (copy.append === true) {
      if (existing === undefined) throw new Error(`artifact ${chunk.artifactId}: append before any chunk`);
      if (task.closed.has(chunk.artifactId))
        throw new Error(`artifact ${chunk.artifactId}: append after lastChunk`);
      existing.parts.push(...cloneJson(copy.parts));
      if (copy.name !== undefined) existing.name = copy.name;
      if (copy.description !== undefined) existing.description = copy.description;
      if (copy.metadata !== undefined)
        existing.metadata = { ...existing.metadata, ...toJsonObject(copy.metadata) };
    } else {
      task.artifacts.set(chunk.artifactId, toArtifact(copy));
      task.closed.delete(chunk.artifactId);
    }
    if (copy.lastChunk === true) task.closed.add(chunk.artifactId);
    stored.push(copy);
    task.chunks.set(chunk.artifactId, stored);
    return 'applied';
  }

  /** What ctx.task shows: a deep copy, so the agent cannot change stored state by mutation. */
  snapshot(task: StoredTask): TaskSnapshot {
    return cloneJson({
      id: task.id,
      contextId: task.contextId,
      state: task.state,
      history: task.history,
      artifacts: [...task.artifacts.values()],
      attempt: task.attempt,
    });
  }

  view(task: StoredTask): HarnessTask {
    const view: HarnessTask = {
      id: task.id,
      contextId: task.contextId,
      state: task.state,
      visible: task.visible,
      history: task.history,
      artifacts: [...task.artifacts.values()],
      attempt: task.attempt,
    };
    if (task.statusMessage !== undefined) view.statusMessage = task.statusMessage;
    if (task.reply !== undefined) view.reply = task.reply;
    return cloneJson(view);
  }
}

/** A copy: the artifact's parts grow with later chunks, the stored first chunk must not. */
function toArtifact(chunk: ArtifactChunk): Artifact {
  const artifact: Artifact = { artifactId: chunk.artifactId, parts: cloneJson(chunk.parts) };
  if (chunk.name !== undefined) artifact.name = chunk.name;
  if (chunk.description !== undefined) artifact.description = chunk.description;
  if (chunk.metadata !== undefined) artifact.metadata = toJsonObject(chunk.metadata);
  return artifact;
}

/** Per-context memory shared by all tasks of one agent in the same contextId, across runs. */
export class HarnessMemory {
  #contexts = new Map<string, Map<string, unknown>>();

  forContext(contextId: string, onSet: (key: string, value: unknown) => void): ContextMemory {
    const entries = this.#entries(contextId);
    return {
      get: <T = unknown>(key: string): Promise<T | undefined> => {
        const value = entries.get(key);
        return Promise.resolve(value === undefined ? undefined : (cloneJson(value) as T));
      },
      set: (key: string, value: unknown): Promise<void> => {
        entries.set(key, cloneJson(value));
        onSet(key, value);
        return Promise.resolve();
      },
    };
  }

  /** A copy of one context's memory, for assertions. */
  snapshot(contextId: string): Map<string, unknown> {
    return new Map([...this.#entries(contextId)].map(([key, value]) => [key, cloneJson(value)]));
  }

  #entries(contextId: string): Map<string, unknown> {
    let entries = this.#contexts.get(contextId);
    if (entries === undefined) {
      entries = new Map();
      this.#contexts.set(contextId, entries);
    }
    return entries;
  }
}

/** Chunks of the artifact that runs of the task's current turn stored (see StoredTask.turnStart). */
export function storedThisTurn(task: StoredTask, artifactId: string): number {
  return (task.chunks.get(artifactId)?.length ?? 0) - (task.turnStart.get(artifactId) ?? 0);
}
