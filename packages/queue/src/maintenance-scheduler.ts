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
  private refresh: NodeJS.Timeout | undefined;

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
    await this.schedule();
    // The schedule lives in Redis, which holds nothing that cannot be rebuilt (ARCHITECTURE.md §3
    // rule 1): re-upserting it (idempotent) brings it back after Redis lost its data.
    this.refresh = setInterval(
      () => {
        this.schedule().catch((err: unknown) => this.options.onError?.(err));
      },
      Math.max(60_000, this.options.retentionEveryMs),
    );
    this.refresh.unref();
    void this.worker.run().catch((err: unknown) => this.options.onError?.(err));
  }

  private schedule(): Promise<unknown> {
    return this.queue.upsertJobScheduler(
      'retention-schedule',
      { every: this.options.retentionEveryMs },
      {
        name: JOB_NAMES.retention,
        data: { scheduledAt: new Date().toISOString() },
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  }

  async close(): Promise<void> {
    if (this.refresh) clearInterval(this.refresh);
    await this.worker.close();
    await this.queue.close();
  }
}
