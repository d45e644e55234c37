import type { Logger } from '@switchyard/telemetry';
import type {
  ChangeTaskInput,
  CreateTaskInput,
  CreateTaskResult,
  TaskRecord,
  TaskStore,
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

  constructor({ store, hints, log }: { store: TaskStore; hints: HintSink; log: Logger }) {
    this.store = store;
    this.hints = hints;
    this.log = log;
  }

  async create(input: CreateTaskInput): Promise<CreateTaskResult> {
    const result = await this.store.createTask(input);
    if (result.created) await this.announce(result.task, input.event);
    return result;
  }

  async change(input: ChangeTaskInput): Promise<TaskRecord> {
    const task = await this.store.changeTask(input);
    await this.announce(task, input.event);
    return task;
  }

  /** Publishes the hint for a change committed elsewhere (claim, reaper). */
  async announce(task: TaskRecord, payload?: StreamResponse): Promise<void> {
    try {
      await this.hints.publish({
        tenantId: task.tenantId,
        taskId: task.id,
        seq: task.version,
        state: task.state,
        ...(payload ? { payload } : {}),
      });
      if (task.visibility === 'task') await this.hints.publishPushDue();
    } catch (err) {
      this.log.warn(
        { err, tenantId: task.tenantId, taskId: task.id },
        'hint publish failed; subscribers will poll',
      );
    }
  }
}
