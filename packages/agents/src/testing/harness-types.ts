import type { Artifact, Message, TaskState } from '@switchyard/protocol';
import type { ArtifactChunk, RunEndedError } from '../agent.ts';

/**
 * `applied`: the call took effect. `skipped`: an artifact chunk a previous run already stored
 * (the platform's at-least-once rule). `refused`: the run had ended, the call threw RunEndedError.
 */
export type CallStatus = 'applied' | 'skipped' | 'refused';

/** Things the platform does on its own, recorded between the agent's calls. */
export type PlatformEvent =
  /** The quick-reply window lapsed: the request became a visible Task in WORKING. */
  | 'upgraded'
  /** execute returned without ending the task, so it was COMPLETED. */
  | 'auto-completed'
  /** execute threw (not RunEndedError); with onAgentError 'fail-task' the task was FAILED. */
  | 'failed-on-error'
  | 'canceled'
  | 'lease-lost';

interface CallBase {
  taskId: string;
  status: CallStatus;
  /** Set when status is 'refused'. */
  refusedBecause?: RunEndedError['reason'];
}

export type RecordedCall = CallBase &
  (
    | { kind: 'reply'; message: Message; answeredAs: 'message' | 'task' }
    | { kind: 'setStatus' | 'requestInput' | 'requestAuth' | 'fail' | 'reject'; message: Message }
    | { kind: 'complete'; message?: Message }
    | { kind: 'emitArtifact'; chunk: ArtifactChunk }
    | { kind: 'memory.set'; key: string; value: unknown }
    | { kind: 'platform'; event: PlatformEvent }
  );

export type CallKind = RecordedCall['kind'];

/** A task as the harness holds it: the wire view plus what the platform tracks beside it. */
export interface HarnessTask {
  id: string;
  contextId: string;
  state: TaskState;
  /**
   * False while the request can still be answered with a Message (and after it was): such a
   * request never shows up in GetTask/ListTasks (ARCHITECTURE.md §5).
   */
  visible: boolean;
  statusMessage?: Message;
  /** The Message answer when the agent replied before the task became visible. */
  reply?: Message;
  history: Message[];
  artifacts: Artifact[];
  /** Runs of the current message so far (1 on the first run, +1 for each re-run after a crash). */
  attempt: number;
}

export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg?: string;
}

export interface RunResult {
  taskId: string;
  contextId: string;
  /** 'message' when the agent answered with a single Message and no task became visible. */
  outcome: 'message' | 'task';
  /** The Message answer when outcome is 'message'. */
  reply?: Message;
  /** The task after the run (a copy). */
  task: HarnessTask;
  /** This run's calls, in order, including refused calls and platform events. */
  calls: RecordedCall[];
  logs: LogEntry[];
  /** What execute threw, when it threw something other than RunEndedError (onAgentError 'fail-task'). */
  error?: unknown;
}

/** Control over one run in flight (to cancel it, crash it, or upgrade it at a chosen point). */
export interface HarnessRun {
  readonly taskId: string;
  /** This run's calls so far (live). */
  readonly calls: readonly RecordedCall[];
  readonly result: Promise<RunResult>;
  /** CancelTask: CANCELED, the signal aborts, later writes throw RunEndedError('canceled'). */
  cancel(): void;
  /** A crash or lapsed lease: the signal aborts, state stays, later writes throw ('lease-lost'). */
  loseLease(): void;
  /** The quick-reply window lapsed now: the request becomes a visible Task in WORKING. */
  upgrade(): void;
  /** Resolves with the first call (past or future) of this run that matches. */
  waitForCall(match: (call: RecordedCall) => boolean): Promise<RecordedCall>;
}

export interface AgentHarnessOptions {
  /** Executor settings passed to every run (a send may override them). Default {}. */
  settings?: Record<string, unknown>;
  /** Context for new tasks when a send names none. Default: a fresh context per task, as a server generates. */
  contextId?: string;
  /**
   * Upgrade on the agent's quickReplyWindowMs with a real timer. Default true; set false to drive
   * upgrades only through HarnessRun.upgrade() when a test must not depend on timer order.
   */
  autoUpgrade?: boolean;
  /**
   * When execute throws something other than RunEndedError: 'throw' rejects the run's result (the
   * default: a unit test should fail loudly), 'fail-task' FAILs the task and reports `error`.
   */
  onAgentError?: 'throw' | 'fail-task';
  /**
   * Also append every status message of the agent to the task history as it is set. Default
   * false: as on the platform, history holds the client's messages and, when a message continues
   * the task, the question it waited on. Turn it on to check an agent does not depend on the choice.
   */
  agentMessagesInHistory?: boolean;
}

export interface SendOptions {
  /** Continue this task (it must be INPUT_REQUIRED or AUTH_REQUIRED). */
  taskId?: string;
  contextId?: string;
  /** Replaces the harness settings for this run. */
  settings?: Record<string, unknown>;
  acceptedOutputModes?: string[];
  /** The request is answered with a Task whatever the agent does (ARCHITECTURE.md §5). */
  returnImmediately?: boolean;
  /**
   * Called synchronously right after each call is recorded, before the agent sees its result:
   * the place to inject a crash (`run.loseLease()`) or cancel at an exact point.
   */
  onCall?: (call: RecordedCall, run: HarnessRun) => void;
}
