import type { Task } from '@switchyard/protocol';

/** `run()` / `waitForTask()` gave up after `timeoutMs`; the task may still be running. */
export class RunTimeoutError extends Error {
  readonly timeoutMs: number;
  /** The task as last seen, when one was seen. */
  readonly task: Task | undefined;

  constructor(timeoutMs: number, task: Task | undefined) {
    super(
      `gave up after ${timeoutMs} ms; task ${task?.id ?? '(none yet)'} is ${task?.status.state ?? 'unknown'}`,
    );
    this.name = 'RunTimeoutError';
    this.timeoutMs = timeoutMs;
    this.task = task;
  }
}
