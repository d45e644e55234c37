import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES } from './job-catalog.ts';
import type { QueueKeys } from './queue-keys.ts';

/** One scheduled maintenance job: what runs, and how often. */
export interface MaintenanceJob {
  name: typeof JOB_NAMES.retention | typeof JOB_NAMES.tableUpkeep;
  /** Unit: ms. */
  everyMs: number;
  run(): Promise<void>;
}

export interface MaintenanceOptions {
  connection: Redis;
  keys: QueueKeys;
  jobs: MaintenanceJob[];
  onError?(err: unknown): void;
}

/**
 * Scheduled maintenance on BullMQ job schedulers: every worker process upserts the same schedules
 * (idempotent) and consumes the maintenance queue with concurrency 1, so each tick runs once in the
 * whole deployment however many workers there are, and a dead worker's tick is run by another.
 */
export class MaintenanceScheduler {
  private readonly queue: Queue;
  private readonly worker: Worker;
  private readonly options: MaintenanceOptions;
  private refresh: NodeJS.Timeout[] = [];

  constructor(options: MaintenanceOptions) {
    this.options = options;
    const { connection, keys, jobs } = options;
    this.queue = new Queue(keys.maintenanceQueue, { connection, prefix: keys.bullPrefix });
    this.worker = new Worker(
      keys.maintenanceQueue,
      async (job) => {
        await jobs.find((j) => j.name === job.name)?.run();
      },
      { connection, prefix: keys.bullPrefix, concurrency: 1, autorun: false },
    );
    if (options.onError) this.worker.on('error', options.onError);
  }

  async start(): Promise<void> {
    const { jobs, onError } = this.options;
    await Promise.all(jobs.map((job) => this.schedule(job)));
    // The schedules live in Redis, which holds nothing that cannot be rebuilt (ARCHITECTURE.md §3
    // rule 1): re-upserting one (idempotent) brings it back after Redis lost its data. Each is
    // re-upserted no more often than it runs.
    this.refresh = jobs.map((job) => {
      const timer = setInterval(
        () => {
          this.schedule(job).catch((err: unknown) => onError?.(err));
        },
        Math.max(60_000, job.everyMs),
      );
      timer.unref();
      return timer;
    });
    void this.worker.run().catch((err: unknown) => onError?.(err));
  }

  private schedule(job: MaintenanceJob): Promise<unknown> {
    return this.queue.upsertJobScheduler(
      `${job.name}-schedule`,
      { every: job.everyMs },
      {
        name: job.name,
        data: { scheduledAt: new Date().toISOString() },
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  }

  async close(): Promise<void> {
    for (const timer of this.refresh) clearInterval(timer);
    await this.worker.close();
    await this.queue.close();
  }
}
