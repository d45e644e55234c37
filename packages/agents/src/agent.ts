import type { AgentCapabilities, AgentSkill, Artifact, Message, Part, TaskState } from '@switchyard/protocol';

/**
 * The agent-author API. An agent is a card plus an `execute` function; the platform runs it on a
 * worker under a lease and turns every context call into a compare-and-set write plus an event.
 *
 * Execution is at-least-once (ARCHITECTURE.md §3 rule 4): after a crash the agent runs again from
 * the top with the task as stored. Write agents so a second run is harmless: decide from
 * `ctx.task` (history, artifacts, state) and `ctx.memory`, not from in-process state. The platform
 * helps: artifact chunks a previous run already stored are not written twice (the k-th chunk of an
 * artifact in this run is skipped when a run of the same turn already stored a k-th; a turn starts
 * with the task and again with each answer to an input or auth request).
 *
 * Context calls take effect one after another, in the order they were made, even when the agent
 * does not await one before making the next.
 */
export interface Agent {
  /** Executor name, referenced by an agent registration's `executor`. */
  executor: string;
  /** The card template; the gateway adds interfaces, security and capabilities it serves. */
  card: AgentCardTemplate;
  /**
   * When set, the agent may answer with a single Message; if it has neither replied nor taken a
   * task action within this window, the platform makes the request a visible Task in WORKING and
   * the answer lands in that task (ARCHITECTURE.md §5). Unit: ms. Unset, the worker's default
   * window applies (the engine's defaultQuickReplyMs, 250 ms): an agent that replies within it
   * answers with a Message, else with a Task.
   */
  quickReplyWindowMs?: number;
  execute(ctx: AgentContext): Promise<void>;
  /**
   * Optional. Called when a client cancels a task and no run of this agent heard the cancel: the
   * task was waiting for input or auth, queued, or backing off, or the worker running it died or
   * froze (then once its lease has lapsed). A run that hears the cancel has its signal aborted
   * instead. The task is already CANCELED; use it to release what the task held elsewhere (the
   * upstream executor cancels the upstream task). At least once and best effort: make it
   * idempotent (a frozen worker that resumes also stops its agent), and a failure is logged, not
   * retried.
   */
  onCanceled?(ctx: CanceledTaskContext): Promise<void>;
  /**
   * Optional. Called when the platform, not the agent, failed the task: its last attempt threw,
   * timed out (RUN_TIMEOUT_MS), or lost its lease (a worker died on it). The task is already
   * FAILED and its run is over (after a timeout its `execute` may still be unwinding from the
   * aborted signal); use it, as onCanceled, to release what the task held elsewhere.
   * Best effort: called once by the worker that wrote the failure, right after it; a failure is
   * logged, not retried, and a worker that dies in between never calls it.
   */
  onFailed?(ctx: CanceledTaskContext): Promise<void>;
}

/**
 * What `onCanceled` and `onFailed` get: the ended task's ids, the registration's settings and its
 * memory.
 */
export interface CanceledTaskContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly memory: ContextMemory;
  readonly log: AgentLogger;
}

export interface AgentCardTemplate {
  name: string;
  description: string;
  version: string;
  skills: AgentSkill[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  documentationUrl?: string;
  iconUrl?: string;
  /** Extensions the agent supports (streaming/push/extended card are the platform's to declare). */
  capabilities?: Pick<AgentCapabilities, 'extensions'>;
}

/** A status or reply message: plain text, or parts. The platform fills ids, role and context. */
export type MessageInput = string | { parts: Part[]; metadata?: Record<string, unknown> };

export interface ArtifactChunk {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  /** Append these parts to the artifact already sent with the same id (false starts it anew). */
  append?: boolean;
  /** This is the artifact's final chunk. */
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

export interface TaskSnapshot {
  id: string;
  contextId: string;
  state: TaskState;
  /** Every message so far, oldest first, including `ctx.message`. */
  history: Message[];
  artifacts: Artifact[];
  metadata?: Record<string, unknown>;
  /** 1 on the first run; higher after a crash, a lapsed lease or an error retry. */
  attempt: number;
}

export interface ContextMemory {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

export interface AgentLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface AgentContext {
  readonly task: TaskSnapshot;
  /** The message that started this run (the first one, or the answer to an input request). */
  readonly message: Message;
  /** Aborted when the task is canceled or this worker lost its lease: stop between steps. */
  readonly signal: AbortSignal;
  /** The agent registration's executor settings. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** The client's acceptedOutputModes, when it sent any. */
  readonly acceptedOutputModes: readonly string[] | undefined;
  /** Memory shared by this agent's tasks in the same contextId sent by the same principal. */
  readonly memory: ContextMemory;
  readonly log: AgentLogger;

  /** Answer with a single Message and no task. Once a task is visible this completes it with the message. */
  reply(message: MessageInput): Promise<void>;
  /** WORKING with a status message (progress). */
  setStatus(message: MessageInput): Promise<void>;
  /**
   * Stream an artifact chunk. It is written one step behind: with the agent's next call, or after
   * one turn of the event loop, whichever comes first; so a last chunk followed by `complete()`
   * costs one write. A chunk that could not be written makes the next call throw. A chunk that
   * would take the task's artifacts past the worker's TASK_MAX_ARTIFACT_BYTES is not stored: the
   * task fails with a status message naming the limit, and this call throws RunEndedError.
   */
  emitArtifact(chunk: ArtifactChunk): Promise<void>;
  /** INPUT_REQUIRED: the run ends; the client's next message to the task starts a new run. */
  requestInput(message: MessageInput): Promise<void>;
  /** AUTH_REQUIRED: the run ends; credentials come out of band, then a message resumes the task. */
  requestAuth(message: MessageInput): Promise<void>;
  complete(message?: MessageInput): Promise<void>;
  /** FAILED with a safe message (never a stack trace). */
  fail(message: MessageInput): Promise<void>;
  /** REJECTED: the agent declines the task. */
  reject(message: MessageInput): Promise<void>;
  /**
   * For agents that resume rather than replay from the top (the upstream executor follows a task
   * that lives elsewhere): the chunks an earlier attempt of this run stored count as already
   * emitted, so the next `emitArtifact` writes instead of being taken for a replayed chunk.
   */
  resumeAfterStoredChunks(): void;
}

/**
 * Thrown by an agent for an error whose safe description may be shown to the client. It counts
 * as a failed attempt like any error (retried with backoff under the attempt limit); when the
 * last attempt fails, `safeMessage` becomes the FAILED status text and `code`, when set, names the
 * A2A error a blocking request answers with (e.g. InvalidAgentResponse for an upstream agent that
 * did not speak A2A).
 */
export class AgentFailure extends Error {
  readonly safeMessage: string;
  readonly code: 'InvalidAgentResponse' | undefined;
  constructor(
    safeMessage: string,
    options?: { cause?: unknown; code?: 'InvalidAgentResponse'; detail?: string },
  ) {
    super(options?.detail ? `${safeMessage}: ${options.detail}` : safeMessage, options);
    this.name = 'AgentFailure';
    this.safeMessage = safeMessage;
    this.code = options?.code;
  }
}

/**
 * Thrown by context calls once the run can no longer write (canceled, lease lost, or the run
 * already ended). Agents need not catch it: the platform expects it and stops the run quietly.
 */
export class RunEndedError extends Error {
  readonly reason: 'canceled' | 'lease-lost' | 'finished';
  constructor(reason: 'canceled' | 'lease-lost' | 'finished', options?: { cause?: unknown }) {
    super(`the agent run has ended (${reason})`, options);
    this.name = 'RunEndedError';
    this.reason = reason;
  }
}
