import { withSpan, type Logger, type TaskMetrics } from '@switchyard/telemetry';
import { isTerminal } from '@switchyard/protocol';
import {
  changesStatus,
  withStatusTime,
  type ChangeTaskInput,
  type CreateTaskInput,
  type CreateTaskResult,
  type TaskRecord,
  type TaskStore,
} from '@switchyard/store';
import type { StreamResponse } from '@switchyard/protocol';
import type { HintSink } from './ports.ts';

/**
 * Every engine write goes through here: the store commits the change and its event in one
 * transaction, then the hint is published. Publishing after commit means a subscriber can never
 * see a hint for an event that is not yet readable; a failed publish only delays subscribers.
 */
export class TaskWriter {
  private readonly store: TaskStore;
  private readonly hints: HintSink;
  private readonly log: Logger;
  private readonly metrics: TaskMetrics | undefined;

  constructor({
    store,
    hints,
    log,
    metrics,
  }: {
    store: TaskStore;
    hints: HintSink;
    log: Logger;
    metrics?: TaskMetrics;
  }) {
    this.store = store;
    this.hints = hints;
    this.log = log;
    this.metrics = metrics;
  }

  async create(input: CreateTaskInput): Promise<CreateTaskResult> {
    const result = await withSpan(
      'store.create-task',
      { 'switchyard.task_id': input.id, 'switchyard.tenant_id': input.tenantId },
      () => this.store.createTask(input),
    );
    if (result.created) {
      this.metrics?.created({ agent: input.agentId, tenant: input.tenantId });
      // No task hint: nobody can be following a task that did not exist a moment ago (its id is
      // in this very answer), and whoever follows it next (this answer's own stream, a
      // SubscribeToTask) starts from the log. Publishing one cost every send a serialized
      // snapshot and a Redis command that no subscriber could receive. The pushers are woken
      // when the creation queued a delivery (an inline push config); not awaited, never throws.
      if (result.task.pushDue) void this.wakePushers(result.task);
    }
    return result;
  }

  async change(input: ChangeTaskInput): Promise<TaskRecord> {
    const task = await withSpan(
      'store.change-task',
      {
        'switchyard.task_id': input.taskId,
        'switchyard.tenant_id': input.tenantId,
        'switchyard.expected_version': input.expectedVersion,
      },
      () => this.store.changeTask(input),
    );
    this.finished(task, input.patch.state);
    // The preceding chunk's event has the seq before the change's: it rides in the same hint, with
    // its payload, so subscribers stay on the inline fast path with one message.
    // A new status got its time from the database in the commit (the store's status-time.ts): the
    // hint carries the event as the log holds it.
    await this.announce(
      task,
      changesStatus(input.patch) ? withStatusTime(input.event, task.statusTimestamp) : input.event,
      input.precededBy ? { seq: task.version - 1, payload: input.precededBy.event } : undefined,
    );
    return task;
  }

  /** Counts a task that reached a terminal state through this change. */
  finished(task: TaskRecord, newState?: TaskRecord['state']): void {
    if (newState && isTerminal(newState) && task.visibility !== 'message') {
      this.metrics?.finished({ agent: task.agentId, state: newState });
    }
  }

  /** Publishes the hint for a change committed elsewhere (claim, reaper). */
  async announce(
    task: TaskRecord,
    payload?: StreamResponse,
    before?: { seq: number; payload: StreamResponse },
  ): Promise<void> {
    try {
      await this.hints.publish({
        tenantId: task.tenantId,
        taskId: task.id,
        seq: task.version,
        state: task.state,
        ...(payload ? { payload } : {}),
        ...(before ? { before } : {}),
      });
    } catch (err) {
      this.log.warn(
        { err, tenantId: task.tenantId, taskId: task.id },
        'hint publish failed; subscribers will poll',
      );
    }
    // Wake the pushers only for a write that queued deliveries (most tasks have no webhook);
    // writes that do not say (claim, reaper) wake them whenever the task is visible.
    if (task.pushDue ?? task.visibility === 'task') await this.wakePushers(task);
  }

  /** Best effort: a pusher also finds due deliveries on its own poll. */
  private async wakePushers(task: TaskRecord): Promise<void> {
    try {
      await this.hints.publishPushDue();
    } catch (err) {
      this.log.warn(
        { err, tenantId: task.tenantId, taskId: task.id },
        'push wake-up publish failed; pushers will poll',
      );
    }
  }
}
