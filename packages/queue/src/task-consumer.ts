import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES, type RunTaskJob, type TaskCanceledJob } from './job-catalog.ts';
import type { QueueKeys } from './queue-keys.ts';

export interface TaskConsumerOptions {
  connection: Redis;
  keys: QueueKeys;
  /** Agent runs at once in this process. */
  concurrency: number;
  handle(job: RunTaskJob, signal: AbortSignal): Promise<void>;
  /** A task-canceled notice (TaskCanceledJob); ignored when absent. */
  handleCanceled?(job: TaskCanceledJob): Promise<void>;
  onError?(err: unknown): void;
}

/**
 * The consumer side of task dispatch: a BullMQ worker that hands each run-task job to `handle`.
 * The job stays active while the agent runs, so `concurrency` bounds the runs per process; the
 * Postgres lease (not BullMQ's lock) decides who may write, so a stalled BullMQ job re-delivered
 * elsewhere is harmless: its claim fails.
 */
export class TaskConsumer {
  readonly worker: Worker;

  constructor({ connection, keys, concurrency, handle, handleCanceled, onError }: TaskConsumerOptions) {
    this.worker = new Worker(
      keys.taskQueue,
      async (job: Job<RunTaskJob | TaskCanceledJob>, _token?: string, signal?: AbortSignal) => {
        if (job.name === JOB_NAMES.taskCanceled) await handleCanceled?.(job.data);
        if (job.name !== JOB_NAMES.runTask) return;
        await handle(job.data, signal ?? new AbortController().signal);
      },
      {
        connection,
        prefix: keys.bullPrefix,
        concurrency,
        autorun: false,
        // A job whose process died goes back to waiting; the claim CAS keeps this harmless.
        maxStalledCount: 10,
      },
    );
    if (onError) this.worker.on('error', onError);
  }

  start(): void {
    void this.worker.run().catch((err: unknown) => this.worker.emit('error', err as Error));
  }

  /** Stop taking new jobs; running handlers continue. */
  async pause(): Promise<void> {
    await this.worker.pause(true);
  }

  /** Waits for running handlers unless `force`. */
  async close(force = false): Promise<void> {
    await this.worker.close(force);
  }
}
