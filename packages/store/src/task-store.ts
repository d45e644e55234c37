import type { RunInputs } from './tasks/load-run-inputs.ts';
import type { TakeCancelNoticeInput } from './tasks/take-cancel-notice.ts';
import type {
  Artifact,
  Message,
  Part,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
} from '@switchyard/protocol';

/**
 * The contract between the engine and Postgres. Every method that changes a task is ONE guarded
 * statement (compare-and-set on `version`, plus the lease owner where a worker writes) in a
 * transaction that also appends the task's event (seq = the new version) and the push outbox rows
 * for it. A guard that matches no row throws `ConflictError`; nothing is ever silently overwritten.
 * Every query filters by tenant.
 */

export type Visibility = 'pending' | 'task' | 'message';

/** A task row as the engine sees it (not the wire Task: that is `TaskView`). */
export interface TaskRecord {
  /**
   * Set by the writes that can queue webhook deliveries (changeTask, createTask): whether this
   * write queued any, so the writer wakes the pushers only when there is something to deliver.
   * Absent on plain reads.
   */
  pushDue?: boolean;
  tenantId: string;
  id: string;
  contextId: string;
  agentId: string;
  owner: string;
  visibility: Visibility;
  state: TaskState;
  /** Bumped by every change that appends an event: version N is event seq N. */
  version: number;
  statusMessage: Message | null;
  statusTimestamp: Date;
  metadata: Record<string, unknown> | null;
  /** The Message reply when visibility is 'message'. */
  reply: Message | null;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  attempts: number;
  runAfter: Date;
  lastError: string | null;
  /** The client's acceptedOutputModes, or null when it sent none. */
  acceptedOutputModes: string[] | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who is asking: reads are limited to `owner` unless `admin` (tenant admins see all). */
export interface Caller {
  tenantId: string;
  principal: string;
  admin: boolean;
  /** The A2A version the caller speaks when it is not 1.0: webhooks it registers follow it. */
  protocolVersion?: '0.3';
}

export interface NewPushConfig {
  /** Assigned by the server (uuid) when absent. */
  id?: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
  /** An A2A 0.3 client registered it: webhook bodies take the 0.3 shape. Default 1.0. */
  wireVersion?: '0.3';
}

export interface CreateTaskInput {
  tenantId: string;
  /** Server-generated uuid. */
  id: string;
  contextId: string;
  agentId: string;
  owner: string;
  visibility: Visibility;
  /** The first history entry; its messageId is the idempotency key unless `idempotencyKey` is set. */
  message: Message;
  /**
   * The key a retry of this send is recognised by, when it is not the messageId: the engine sets
   * a key of its own per task when messageId idempotency is off (conformance suites).
   */
  idempotencyKey?: string;
  metadata?: Record<string, unknown>;
  pushConfig?: NewPushConfig;
  /** The event appended as seq 1 (normally a `task` snapshot). */
  event: StreamResponse;
  /** W3C trace context of the creating request, so later work (push deliveries) joins its trace. */
  traceContext?: { traceparent?: string; tracestate?: string };
  /** The client's acceptedOutputModes, handed to the agent when it runs. */
  acceptedOutputModes?: string[];
}

export type CreateTaskResult =
  | { created: true; task: TaskRecord }
  /** The messageId was seen before (a retry): the earlier task, whoever owns it. */
  | { created: false; taskId: string; principal: string };

export interface ArtifactChunkInput {
  artifactId: string;
  append: boolean;
  lastChunk: boolean;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

/** Fields a change may set; absent fields keep their value. */
export interface TaskPatch {
  state?: TaskState;
  visibility?: Visibility;
  /** null clears the status message. */
  statusMessage?: Message | null;
  reply?: Message | null;
  metadata?: Record<string, unknown> | null;
  lastError?: string | null;
  /** Clears lease_owner/lease_expires_at (used when a worker finishes or is interrupted). */
  clearLease?: boolean;
  /**
   * Sets run_after (dispatch not before) to this many ms after the database's now(): the claim
   * compares run_after with Postgres's clock, so a writer whose clock runs ahead must not set it
   * from its own (its continuation would wait for the difference, its retries be stretched by it).
   */
  runAfterMs?: number;
  /**
   * A new run generation (a continuation after input or auth): attempts count again from zero, so
   * a long conversation is not failed by the retry limit of its earlier runs.
   */
  resetAttempts?: boolean;
}

export interface ChangeTaskInput {
  tenantId: string;
  taskId: string;
  /**
   * The version the writer read; the change applies only if it is still current. 'any' leaves the
   * version out of the guard, for a change whose only precondition is the state (CancelTask: a
   * busy agent's writes must not starve it); `fromStates` is then required.
   */
  expectedVersion: number | 'any';
  /** Extra guard: the current state must be one of these. */
  fromStates?: readonly TaskState[];
  /** Fence: only the current lease holder may write (workers always pass it). */
  leaseOwner?: string;
  patch: TaskPatch;
  /** Appended with seq = the new version (the version read + 1 for a versioned change). */
  event: StreamResponse;
  /**
   * Appended to the task's history, in this order, in the same transaction (a continuation: the
   * agent's question the task was waiting on, then the answer).
   */
  appendMessages?: readonly Message[];
  /** Stored as an artifact chunk in the same transaction. */
  artifactChunk?: ArtifactChunkInput;
  /**
   * An artifact chunk and its event written first, in the same statement: they take
   * seq = expectedVersion + 1 and this change's own event expectedVersion + 2 (the version moves
   * by two). A worker writes a run's last chunk with its ending this way: one transaction less.
   */
  precededBy?: { artifactChunk: ArtifactChunkInput; event: StreamResponse };
  /**
   * A webhook named in the message this change answers (a continuation), registered in the same
   * transaction just before the change, unless the task already has it (same URL, and same id when
   * given), which is left untouched. The change's own event is queued for it; a change that fails
   * (a rival answer or a cancel won) registers nothing. At the task's limit of push configs the
   * change fails with PushConfigLimitError and nothing changes.
   */
  registerPushConfig?: NewPushConfig;
}

export interface ClaimInput {
  tenantId: string;
  taskId: string;
  /** The worker process. The claim leases under this id and a token of its own: `task.leaseOwner`. */
  workerId: string;
  leaseMs: number;
}

/** A run's lease: `leaseOwner` is the claim's `task.leaseOwner`, never the bare worker id. */
export interface LeaseInput {
  tenantId: string;
  taskId: string;
  leaseOwner: string;
  leaseMs: number;
}

/**
 * Result of a claim: the task now leased to the worker, whether the claim moved it SUBMITTED →
 * WORKING (and so appended a statusUpdate event), and what the run starts from, read by the
 * claim's own statement.
 */
export interface ClaimResult {
  task: TaskRecord;
  movedToWorking: boolean;
  inputs: RunInputs;
}

export interface LapsedTask {
  tenantId: string;
  taskId: string;
  leaseOwner: string;
  attempts: number;
  /** The creating request's trace context, so the re-dispatched run joins its trace. */
  traceContext?: StoredTraceContext;
}

/** W3C trace context as a task keeps it (tasks.trace_context). */
export interface StoredTraceContext {
  traceparent?: string;
  tracestate?: string;
}

/** A canceled task whose run never released its lease: its agent is owed the cancel notice. */
export interface UnheardCancel {
  tenantId: string;
  taskId: string;
  version: number;
  attempts: number;
  leaseExpiresAt: Date;
}

export interface DispatchableTask {
  tenantId: string;
  taskId: string;
  agentId: string;
  version: number;
  attempts: number;
  runAfter: Date;
  /** The creating request's trace context, so the dispatched run joins its trace. */
  traceContext?: StoredTraceContext;
  /** Where a later scan continues after this task (findDispatchable's `after`). */
  position: DispatchPosition;
}

/** One step of the reaper's dispatch scan (findDispatchable). */
export interface DispatchScan {
  /** The due tasks among those read, in scan order. */
  tasks: DispatchableTask[];
  /** Where the next step goes on: after the last task read, when it read its full limit. */
  next?: DispatchPosition;
}

/** A place in the reaper's scan of dispatchable work, in (run_after, tenant, id) order. */
export interface DispatchPosition {
  /** run_after in ISO 8601 (UTC) to the microsecond: exact, unlike a Date. */
  runAfter: string;
  tenantId: string;
  taskId: string;
}

export type RecoverOutcome =
  | { outcome: 'requeued'; runAfter: Date; task: TaskRecord }
  | { outcome: 'failed'; task: TaskRecord }
  | { outcome: 'skipped' };

export interface GetTaskOptions {
  historyLength?: number;
  /** Default true for GetTask (artifacts are part of the Task). */
  includeArtifacts?: boolean;
  /** GetTask through an agent's interface: another agent's task is not found (access.ts). */
  agentId?: string;
}

export interface ListTasksInput {
  caller: Caller;
  /**
   * This agent's tasks: each agent's A2A interface lists its own, and the list indexes
   * (000015) lead with it.
   */
  agentId: string;
  contextId?: string;
  state?: TaskState;
  statusTimestampAfter?: Date;
  /** 1..100, validated by the protocol layer. */
  pageSize: number;
  pageToken?: string;
  historyLength?: number;
  includeArtifacts: boolean;
  /**
   * Bytes of task JSON one page may hold; default 4 MiB (page-budget.ts). The page ends
   * before the task that would pass it, but always holds one task: a task over the budget alone
   * comes with its newest history messages that fit beside its row and artifacts.
   */
  maxPageBytes?: number;
}

export interface ListTasksPage {
  tasks: Task[];
  /** '' on the last page; a page cut short by maxPageBytes has one, continuing after its last task. */
  nextPageToken: string;
  /** The page size applied (the request's, or 50), also when maxPageBytes ended the page sooner. */
  pageSize: number;
  totalSize: number;
}

export interface StoredEvent {
  seq: number;
  payload: StreamResponse;
  createdAt: Date;
}

/** A wire Task and the row (its version above all) it shows, read together. */
export interface TaskSnapshot {
  task: Task;
  record: TaskRecord;
}

export interface TaskStore {
  createTask(input: CreateTaskInput): Promise<CreateTaskResult>;
  /** CAS change + event (+ history message, + artifact chunk, + push outbox rows). */
  changeTask(input: ChangeTaskInput): Promise<TaskRecord>;
  /** The raw row, whatever its visibility, scoped to the tenant only. */
  getTaskRecord(tenantId: string, taskId: string): Promise<TaskRecord | null>;
  /** The wire Task if visible to the caller (visibility 'task' and owner or admin), else null. */
  getTask(caller: Caller, taskId: string, options?: GetTaskOptions): Promise<Task | null>;
  /** The wire Task for a record, ignoring visibility (used after a write the caller made). */
  loadTaskView(tenantId: string, taskId: string, options?: GetTaskOptions): Promise<Task | null>;
  /** loadTaskView with the row the view was composed from, both read in one snapshot. */
  loadTaskSnapshot(tenantId: string, taskId: string, options?: GetTaskOptions): Promise<TaskSnapshot | null>;
  /** The wire Task for a record already read (saves reading the row again). */
  viewOf(record: TaskRecord, options?: GetTaskOptions): Promise<Task>;
  listTasks(input: ListTasksInput): Promise<ListTasksPage>;
  getHistory(tenantId: string, taskId: string): Promise<Message[]>;
  /** The history message with this messageId, or null (find-history-message.ts). */
  findHistoryMessage(tenantId: string, taskId: string, messageId: string): Promise<Message | null>;
  /** Bytes of the task's history as JSON text, what its size limit counts (history-bytes.ts). */
  historyBytes(tenantId: string, taskId: string): Promise<number>;
  getArtifacts(tenantId: string, taskId: string): Promise<Artifact[]>;

  claimTask(input: ClaimInput): Promise<ClaimResult | null>;
  /** Extends the lease; false when the lease is no longer ours or the task is not live. */
  renewLease(input: LeaseInput): Promise<{ ok: boolean; state: TaskState | null }>;
  /** Gives the lease back without counting an attempt (graceful shutdown hand-back). */
  releaseLease(input: {
    tenantId: string;
    taskId: string;
    leaseOwner: string;
    refundAttempt: boolean;
  }): Promise<boolean>;
  /** Hands a canceled task's never-released, lapsed lease to a notifier (take-cancel-notice.ts). */
  takeCancelNotice(input: TakeCancelNoticeInput): Promise<boolean>;
  findLapsedLeases(limit: number): Promise<LapsedTask[]>;
  /** Canceled tasks whose kept lease lapsed over `unheardAfterMs` ago (find-unheard-cancels.ts). */
  findUnheardCancels(unheardAfterMs: number, limit: number): Promise<UnheardCancel[]>;
  /**
   * Reads up to `limit` unleased SUBMITTED (or WORKING) tasks due to run over `minAgeMs` ago,
   * oldest first, after `after` when given, and returns those the reaper should re-enqueue
   * (find-dispatchable.ts).
   */
  findDispatchable(minAgeMs: number, limit: number, after?: DispatchPosition): Promise<DispatchScan>;
  /**
   * For a lapsed lease held by `leaseOwner`: clear it and set run_after = now + backoff(attempts),
   * or, when attempts >= maxAttempts, fail the task with `failMessage` (a statusUpdate event).
   * Guarded so two reapers cannot both act.
   */
  recoverLapsedLease(input: {
    tenantId: string;
    taskId: string;
    leaseOwner: string;
    maxAttempts: number;
    backoffMs: (attempts: number) => number;
    failEvent: (task: TaskRecord) => { statusMessage: Message; event: StreamResponse };
  }): Promise<RecoverOutcome>;

  readEvents(tenantId: string, taskId: string, afterSeq: number, limit?: number): Promise<StoredEvent[]>;
  /** Current versions of many tasks in one statement; unknown ids are absent. */
  readVersions(
    keys: ReadonlyArray<{ tenantId: string; taskId: string }>,
  ): Promise<Array<{ tenantId: string; taskId: string; version: number }>>;
  /**
   * Artifact chunks stored by the current run generation (since the task last went to WORKING
   * from SUBMITTED or an interrupted state), per artifactId: a retried run skips that many.
   */
  countRunArtifactChunks(tenantId: string, taskId: string): Promise<Map<string, number>>;
  /** History, artifacts and this run's stored chunks in one statement (a run's start). */
  loadRunInputs(tenantId: string, taskId: string): Promise<RunInputs>;

  getMemory(scope: MemoryScope, key: string): Promise<unknown>;
  setMemory(scope: MemoryScope, key: string, value: unknown): Promise<void>;
  /** setMemory by a run, fenced by its lease: false, and nothing written, once it lost the task. */
  setRunMemory(scope: MemoryScope, fence: MemoryFence, key: string, value: unknown): Promise<boolean>;
}

/** The run a memory write belongs to: its task and the lease token its claim holds. */
export interface MemoryFence {
  taskId: string;
  leaseOwner: string;
}

/**
 * Whose memory: an agent's, in one principal's conversation. A contextId is a label clients may
 * choose or reuse (digest §7.1 rule 6), so the owner is part of the scope: another principal
 * sending the same contextId starts a conversation of its own (migration 000006).
 */
export interface MemoryScope {
  tenantId: string;
  agentId: string;
  owner: string;
  contextId: string;
}

/** Push configs are owned by a task; the caller's access to the task is checked by the engine. */
export interface PushConfigStore {
  createPushConfig(
    tenantId: string,
    taskId: string,
    config: NewPushConfig,
  ): Promise<TaskPushNotificationConfig>;
  /** Secrets (token, credentials) redacted. */
  getPushConfig(tenantId: string, taskId: string, id: string): Promise<TaskPushNotificationConfig | null>;
  listPushConfigs(
    tenantId: string,
    taskId: string,
    page: { pageSize: number; pageToken?: string },
  ): Promise<{ configs: TaskPushNotificationConfig[]; nextPageToken: string }>;
  /** Idempotent: true when a row was deleted. Pending deliveries for it go too. */
  deletePushConfig(tenantId: string, taskId: string, id: string): Promise<boolean>;
  /** Most configs one task may have (README "Limits"). */
  readonly maxConfigsPerTask: number;
  /**
   * Adds a config, or updates the one with its id (or, without an id, its URL); null, and nothing
   * changed, when it would be new and the task already has `maxConfigsPerTask`. The service adds
   * configs only through it.
   */
  tryCreatePushConfig(
    tenantId: string,
    taskId: string,
    config: NewPushConfig,
  ): Promise<TaskPushNotificationConfig | null>;
  /**
   * Like tryCreatePushConfig, but a config the task already has for the URL (and the id, when
   * given) is returned untouched instead of updated: for webhooks named in a message.
   */
  ensurePushConfig(
    tenantId: string,
    taskId: string,
    config: NewPushConfig,
  ): Promise<TaskPushNotificationConfig | null>;
}
