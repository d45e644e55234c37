// The checker's input: what the clients, the receiver, the fault injector and the store saw.
// Plain data, so the checker is a pure function and can be unit-tested on hand-made violations.

export type Scenario =
  'blocking' | 'nonblocking' | 'streaming' | 'push' | 'input-required' | 'cancel' | 'reply';

export type FaultKind =
  | 'kill-worker'
  | 'freeze-worker'
  | 'kill-gateway'
  | 'kill-pusher'
  | 'restart-redis'
  | 'flushall-redis'
  | 'freeze-redis'
  | 'restart-postgres'
  | 'freeze-postgres';

export const FAULT_KINDS: readonly FaultKind[] = [
  'kill-worker',
  'freeze-worker',
  'kill-gateway',
  'kill-pusher',
  'restart-redis',
  'flushall-redis',
  'freeze-redis',
  'restart-postgres',
  'freeze-postgres',
];

export interface Fault {
  kind: FaultKind;
  /** The process hit (kill/freeze), else undefined. */
  pid?: number;
  name?: string;
  /** Epoch ms; `until` is when it ended (SIGCONT, server back); equal to `at` for a kill. */
  at: number;
  until: number;
  /** A worker freeze: how many of its leased tasks another worker claimed while it was stopped. */
  takenOver?: number;
  note?: string;
}

/** One accepted-or-attempted send, as the client saw it. */
export interface SendRecord {
  scenario: Scenario;
  messageId: string;
  /** Set for a continuation (the task it answers), or once the answer named the task. */
  taskId: string | null;
  kind: 'initial' | 'continuation';
  /** The client got a success answer (a Task or a Message) at least once. */
  accepted: boolean;
  /** HTTP attempts made (retries included, all with this messageId). */
  attempts: number;
  /** Answered with a Message rather than a Task. */
  message?: boolean;
  /** The final state the client read (terminal or interrupted), if it got that far. */
  observedState?: string;
  /** The state CancelTask answered with (the cancel scenario), if it answered. */
  cancelAnswer?: string;
  /** What a deliberate repeat of the accepted send named: the task id, or 'message'. */
  duplicateAnswer?: string;
  /** Why the client stopped retrying without an answer, if it did. */
  gaveUp?: string;
  /**
   * Chunks the message's run streams before it completes the task (its plan); 0 for a run that
   * asks for input or replies with a Message instead.
   */
  plannedChunks: number;
}

/** One streaming client: its first stream and every resume (Last-Event-ID) after a break. */
export interface StreamSession {
  taskId: string | null;
  messageId: string;
  /** SSE ids (event seqs) in arrival order over all connections. */
  ids: number[];
  /** Whether the last event closed the stream (terminal/interrupted state or a Message). */
  finished: boolean;
  connections: number;
  /** Resumes with Last-Event-ID. */
  resumes: number;
}

export interface PushReceived {
  taskId: string;
  configId: string;
  seq: number;
  at: number;
}

export interface StoredTask {
  id: string;
  state: string;
  visibility: string;
  version: number;
}

export interface StoredEvent {
  taskId: string;
  seq: number;
  kind: string;
  /** The state a task/statusUpdate event records; null otherwise. */
  state: string | null;
  /** The counting agent's execution id carried in the event's metadata, if any. */
  exec: string | null;
  createdAt: number;
}

export interface StoredChunk {
  taskId: string;
  seq: number;
  artifactId: string;
  /** The chunk index and the planned count the agent put in its metadata. */
  chunk: number | null;
  of: number | null;
}

export interface Execution {
  execId: string;
  taskId: string;
  messageId: string;
  attempt: number;
  pid: number;
  at: number;
}

export interface Delivery {
  taskId: string;
  configId: string;
  seq: number;
  status: string;
}

/** A worker's own log line about a run it gave up (lease lost, run failed). */
export interface WorkerNote {
  pid: number;
  taskId: string;
  msg: string;
  reason?: string;
  /** The logged error's message, if any. */
  err?: string;
  at: number;
}

export interface CheckInput {
  sends: SendRecord[];
  streams: StreamSession[];
  pushes: PushReceived[];
  faults: Fault[];
  workerNotes: WorkerNote[];
  /** Last log lines of every platform process that exited on its own (none should). */
  crashes: string[];
  tasks: StoredTask[];
  /** messageId → taskId, from the idempotency keys and the task histories. */
  messageTasks: Record<string, string>;
  /** messageId → every task whose history holds that user message (one, where idempotency holds). */
  messageTaskIds: Record<string, string[]>;
  events: StoredEvent[];
  chunks: StoredChunk[];
  executions: Execution[];
  deliveries: Delivery[];
}

export type ViolationKind =
  | 'task-lost'
  | 'task-not-settled'
  | 'unexpected-final-state'
  | 'state-changed-after-client-saw-it'
  | 'two-terminal-states'
  | 'state-diverged'
  | 'event-log-gap'
  | 'event-after-terminal'
  | 'unexplained-reexecution'
  | 'write-after-takeover'
  | 'chunk-missing'
  | 'chunk-duplicated'
  | 'push-missing'
  | 'push-out-of-order'
  | 'push-not-delivered'
  | 'sse-duplicate'
  | 'sse-gap'
  | 'sse-out-of-order'
  | 'sse-unfinished'
  | 'idempotency-broken'
  | 'process-crashed'
  | 'client-gave-up';

export interface Violation {
  kind: ViolationKind;
  taskId?: string;
  detail: string;
}

export interface CheckResult {
  violations: Violation[];
  stats: Record<string, number>;
  /** How each extra execution was explained, by explanation. */
  reexecutions: Record<string, number>;
}
