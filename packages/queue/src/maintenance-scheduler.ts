import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES } from './job-catalog.ts';
import type { QueueKeys } from './queue-keys.ts';

export interface MaintenanceOptions {
  connection: Redis;
  keys: QueueKeys;
  /** How often retention runs. Unit: ms. */
  retentionEveryMs: number;
  runRetention(): Promise<void>;
  onError?(err: unknown): void;
}

/**
 * Scheduled maintenance on a BullMQ job scheduler: every worker process upserts the same schedule
 * (idempotent) and consumes the maintenance queue with concurrency 1, so each tick runs once in the
 * whole deployment however many workers there are, and a dead worker's tick is run by another.
 */
export class MaintenanceScheduler {
  private readonly queue: Queue;
  private readonly worker: Worker;
  private readonly options: MaintenanceOptions;

  constructor(options: MaintenanceOptions) {
    this.options = options;
    const { connection, keys } = options;
    this.queue = new Queue(keys.maintenanceQueue, { connection, prefix: keys.bullPrefix });
    this.worker = new Worker(
      keys.maintenanceQueue,
      async (job) => {
        if (job.name === JOB_NAMES.retention) await options.runRetention();
      },
      { connection, prefix: keys.bullPrefix, concurrency: 1, autorun: false },
    );
    if (options.onError) this.worker.on('error', options.onError);
  }

  async start(): Promise<void> {
    await this.queue.upsertJobScheduler(
      'retention-schedule',
      { every: this.options.retentionEveryMs },
      {
        name: JOB_NAMES.retention,
        data: { scheduledAt: new Date().toISOString() },
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
    void this.worker.run().catch((err: unknown) => this.options.onError?.(err));
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
  }
}
