import type { Artifact, Message, Task, TaskState } from '@switchyard/protocol';
import type { Db } from './db.ts';
import type { SecretBox } from './secret-box.ts';
import type {
  Caller,
  ChangeTaskInput,
  ClaimInput,
  LeaseInput,
  ClaimResult,
  CreateTaskInput,
  CreateTaskResult,
  DispatchScan,
  DispatchPosition,
  GetTaskOptions,
  LapsedTask,
  UnheardCancel,
  MemoryFence,
  MemoryScope,
  ListTasksInput,
  ListTasksPage,
  RecoverOutcome,
  StoredEvent,
  TaskRecord,
  TaskSnapshot,
  TaskStore,
  NewPushConfig,
} from './task-store.ts';
import { changeTask, guardedChange } from './tasks/change-task.ts';
import { retryIfPushConfigVanished } from './tasks/vanished-push-config.ts';
import { PushConfigLimitError } from './errors.ts';
import { addPushConfig, DEFAULT_MAX_PUSH_CONFIGS_PER_TASK } from './push-configs/add-push-config.ts';
import { endRunBatch, isRunEnding, runEndingBatchKey } from './tasks/end-runs.ts';
import { claimBatchKey, claimTasks } from './tasks/claim-task.ts';
import { coalescedStatements } from './coalesced-calls.ts';
import { countRunArtifactChunks } from './tasks/count-run-artifact-chunks.ts';
import { loadRunInputs, type RunInputs } from './tasks/load-run-inputs.ts';
import { createTask } from './tasks/create-task.ts';
import { createTaskBatch } from './tasks/create-tasks.ts';
import { findDispatchable } from './tasks/find-dispatchable.ts';
import { findLapsedLeases } from './tasks/find-lapsed-leases.ts';
import { findUnheardCancels } from './tasks/find-unheard-cancels.ts';
import { getTask, getTaskRecord, loadTaskView, viewOf } from './tasks/get-task.ts';
import { readTaskSnapshot } from './tasks/read-task-view.ts';
import { listTasks } from './tasks/list-tasks.ts';
import { getArtifacts } from './tasks/load-artifacts.ts';
import { getHistory } from './tasks/load-history.ts';
import { findHistoryMessage } from './tasks/find-history-message.ts';
import { historyBytes } from './tasks/history-bytes.ts';
import { getMemory, setMemory, setRunMemory } from './tasks/memory.ts';
import { readEvents } from './tasks/read-events.ts';
import { readVersions, type TaskKey } from './tasks/read-versions.ts';
import { recoverLapsedLease, type RecoverLapsedLeaseInput } from './tasks/recover-lapsed-lease.ts';
import { releaseLease, type ReleaseLeaseInput } from './tasks/release-lease.ts';
import { renewLease } from './tasks/renew-lease.ts';
import { takeCancelNotice, type TakeCancelNoticeInput } from './tasks/take-cancel-notice.ts';

export interface PostgresTaskStoreOptions {
  db: Db;
  /**
   * Seals the token and credentials of a push config given with createTask (the schema stores
   * them encrypted). Optional so stores that never see such secrets need no key; createTask throws
   * if a secret arrives without it.
   */
  secrets?: SecretBox;
  /**
   * The most push configs a task may have, for a change that registers a continuation's webhook
   * (ChangeTaskInput.registerPushConfig). Give it the value the push-config store was given, so
   * both ways of adding a webhook stop at the same count. Default 10, as that store's.
   */
  maxPushConfigsPerTask?: number;
}

/** Claims, run endings or sends per statement at most. */
const MAX_BATCH = 64;

/** TaskStore on Postgres: a thin façade, each method one operation module under ./tasks. */
export class PostgresTaskStore implements TaskStore {
  readonly #db: Db;
  readonly #secrets: SecretBox | undefined;
  readonly #maxPushConfigsPerTask: number;
  /** A worker's claims, coalesced per tenant, worker and lease (coalescedStatements). */
  readonly #claim: (input: ClaimInput) => Promise<ClaimResult | null>;
  /** A gateway's sends without a push config (create-tasks.ts), coalesced per tenant. */
  readonly #create: (input: CreateTaskInput) => Promise<CreateTaskResult>;
  /** A worker's run endings (end-runs.ts), coalesced the same way. */
  readonly #endRun: (input: ChangeTaskInput) => Promise<TaskRecord>;

  constructor(options: PostgresTaskStoreOptions) {
    const { db } = options;
    this.#db = db;
    this.#secrets = options.secrets;
    this.#maxPushConfigsPerTask = options.maxPushConfigsPerTask ?? DEFAULT_MAX_PUSH_CONFIGS_PER_TASK;
    if (!Number.isInteger(this.#maxPushConfigsPerTask) || this.#maxPushConfigsPerTask < 1)
      throw new RangeError(
        `maxPushConfigsPerTask must be a positive integer, got ${this.#maxPushConfigsPerTask}`,
      );
    this.#claim = coalescedStatements(
      claimBatchKey,
      (inputs) => claimTasks(db, inputs),
      async (input) => (await retryIfPushConfigVanished(() => claimTasks(db, [input])))[0] ?? null,
      MAX_BATCH,
    );
    this.#create = coalescedStatements(
      (input) => input.tenantId,
      (inputs) => createTaskBatch(db, inputs),
      (input) => createTask(db, undefined, input),
      MAX_BATCH,
    );
    this.#endRun = coalescedStatements(
      runEndingBatchKey,
      (inputs) => endRunBatch(db, inputs),
      (input) => retryIfPushConfigVanished(() => changeTask(db, input)),
      MAX_BATCH,
    );
  }

  createTask(input: CreateTaskInput): Promise<CreateTaskResult> {
    return input.pushConfig ? createTask(this.#db, this.#secrets, input) : this.#create(input);
  }
  async changeTask(change: ChangeTaskInput): Promise<TaskRecord> {
    // Narrowed to legal edges first, so the batched run endings refuse illegal ones too.
    const input = guardedChange(change);
    if (input.registerPushConfig) return this.#changeRegistering(input, input.registerPushConfig);
    return isRunEnding(input)
      ? this.#endRun(input)
      : retryIfPushConfigVanished(() => changeTask(this.#db, input));
  }
  /** The webhook and the change in one transaction (ChangeTaskInput.registerPushConfig). */
  #changeRegistering(input: ChangeTaskInput, config: NewPushConfig): Promise<TaskRecord> {
    const max = this.#maxPushConfigsPerTask;
    return retryIfPushConfigVanished(() =>
      this.#db.transaction().execute(async (trx) => {
        const { tenantId, taskId } = input;
        const registered = await addPushConfig(trx, this.#secrets, tenantId, taskId, config, max, {
          keepExisting: true,
        });
        if (!registered) throw new PushConfigLimitError(taskId, max);
        return changeTask(trx, input);
      }),
    );
  }
  getTaskRecord(tenantId: string, taskId: string): Promise<TaskRecord | null> {
    return getTaskRecord(this.#db, tenantId, taskId);
  }
  getTask(caller: Caller, taskId: string, options?: GetTaskOptions): Promise<Task | null> {
    return getTask(this.#db, caller, taskId, options);
  }
  viewOf(record: TaskRecord, options: GetTaskOptions = {}): Promise<Task> {
    return viewOf(this.#db, record, options);
  }

  loadTaskView(tenantId: string, taskId: string, options?: GetTaskOptions): Promise<Task | null> {
    return loadTaskView(this.#db, tenantId, taskId, options);
  }

  loadTaskSnapshot(tenantId: string, taskId: string, options?: GetTaskOptions): Promise<TaskSnapshot | null> {
    return readTaskSnapshot(this.#db, tenantId, taskId, options ?? {});
  }
  listTasks(input: ListTasksInput): Promise<ListTasksPage> {
    return listTasks(this.#db, input);
  }
  getHistory(tenantId: string, taskId: string): Promise<Message[]> {
    return getHistory(this.#db, tenantId, taskId);
  }
  findHistoryMessage(tenantId: string, taskId: string, messageId: string): Promise<Message | null> {
    return findHistoryMessage(this.#db, tenantId, taskId, messageId);
  }
  historyBytes(tenantId: string, taskId: string): Promise<number> {
    return historyBytes(this.#db, tenantId, taskId);
  }
  getArtifacts(tenantId: string, taskId: string): Promise<Artifact[]> {
    return getArtifacts(this.#db, tenantId, taskId);
  }
  claimTask(input: ClaimInput): Promise<ClaimResult | null> {
    return this.#claim(input);
  }
  renewLease(input: LeaseInput): Promise<{ ok: boolean; state: TaskState | null }> {
    return renewLease(this.#db, input);
  }
  releaseLease(input: ReleaseLeaseInput): Promise<boolean> {
    return releaseLease(this.#db, input);
  }
  takeCancelNotice(input: TakeCancelNoticeInput): Promise<boolean> {
    return takeCancelNotice(this.#db, input);
  }
  findLapsedLeases(limit: number): Promise<LapsedTask[]> {
    return findLapsedLeases(this.#db, limit);
  }
  findUnheardCancels(unheardAfterMs: number, limit: number): Promise<UnheardCancel[]> {
    return findUnheardCancels(this.#db, unheardAfterMs, limit);
  }
  findDispatchable(minAgeMs: number, limit: number, after?: DispatchPosition): Promise<DispatchScan> {
    return findDispatchable(this.#db, minAgeMs, limit, after);
  }
  recoverLapsedLease(input: RecoverLapsedLeaseInput): Promise<RecoverOutcome> {
    return retryIfPushConfigVanished(() => recoverLapsedLease(this.#db, input));
  }
  readEvents(tenantId: string, taskId: string, afterSeq: number, limit?: number): Promise<StoredEvent[]> {
    return readEvents(this.#db, tenantId, taskId, afterSeq, limit);
  }
  countRunArtifactChunks(tenantId: string, taskId: string): Promise<Map<string, number>> {
    return countRunArtifactChunks(this.#db, tenantId, taskId);
  }
  readVersions(keys: readonly TaskKey[]): Promise<Array<TaskKey & { version: number }>> {
    return readVersions(this.#db, keys);
  }
  loadRunInputs(tenantId: string, taskId: string): Promise<RunInputs> {
    return loadRunInputs(this.#db, tenantId, taskId);
  }
  getMemory(scope: MemoryScope, key: string): Promise<unknown> {
    return getMemory(this.#db, scope, key);
  }

  setMemory(scope: MemoryScope, key: string, value: unknown): Promise<void> {
    return setMemory(this.#db, scope, key, value);
  }
  setRunMemory(scope: MemoryScope, fence: MemoryFence, key: string, value: unknown): Promise<boolean> {
    return setRunMemory(this.#db, scope, fence, key, value);
  }
}
