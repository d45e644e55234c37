import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES } from './job-catalog.ts';
import type { QueueKeys } from './queue-keys.ts';
import { resultWithin } from './result-within.ts';
import { quietQueueErrors, throttled } from './task-queue.ts';

/** Every maintenance job there is; a process runs those it is given. */
const MAINTENANCE_JOBS = [JOB_NAMES.retention, JOB_NAMES.tableUpkeep] as const;

/** One scheduled maintenance job: what runs, and how often. */
export interface MaintenanceJob {
  name: (typeof MAINTENANCE_JOBS)[number];
  /** Unit: ms. */
  everyMs: number;
  run(): Promise<void>;
}

export interface MaintenanceOptions {
  connection: Redis;
  keys: QueueKeys;
  jobs: MaintenanceJob[];
  /**
   * A failed tick or schedule, or a queue or worker error. The latter come once per reconnect
   * attempt while Redis is away, so they are passed on throttled: the first, then at most one per
   * 30 s, with `repeated`, how many errors that call stands for.
   */
  onError?(err: unknown, repeated?: number): void;
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
        const known = jobs.find((j) => j.name === job.name);
        // A tick of a job this process has turned off (set it alike on every worker): say so.
        if (!known) throw new Error(`maintenance job ${job.name} is turned off in this process`);
        await known.run();
      },
      { connection, prefix: keys.bullPrefix, concurrency: 1, autorun: false },
    );
    // One throttle for both: an outage makes each of them report every reconnect attempt.
    const connectionErrors = throttled((err, repeated) => options.onError?.(err, repeated));
    quietQueueErrors(this.queue, connectionErrors);
    quietQueueErrors(this.worker, connectionErrors);
    this.worker.on('failed', (_job, err) => options.onError?.(err));
  }

  async start(): Promise<void> {
    const { jobs, onError } = this.options;
    // Consume and keep refreshing first: a schedule that cannot be written now (Redis away) is
    // written by the next refresh, and this process still runs the ticks other workers schedule.
    void this.worker.run().catch((err: unknown) => onError?.(err));
    // The schedules live in Redis, which holds nothing that cannot be rebuilt (ARCHITECTURE.md §3
    // rule 1): re-upserting one (idempotent; it keeps its next run) brings it back after Redis
    // lost its data. Each is re-upserted no more often than it runs.
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
    const turnedOff = MAINTENANCE_JOBS.filter((name) => !jobs.some((j) => j.name === name));
    const written = await Promise.allSettled([
      ...jobs.map((job) => this.schedule(job)),
      // A job turned off everywhere leaves no schedule behind ticking for nobody.
      ...turnedOff.map((name) => this.queue.removeJobScheduler(`${name}-schedule`)),
    ]);
    for (const w of written) if (w.status === 'rejected') onError?.(w.reason);
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

  /**
   * Stops consuming and scheduling. A graceful BullMQ close waits for its blocking connection's
   * `end`, which a connection reconnecting to an unreachable Redis never emits (BullMQ issue
   * #4656): without Redis the worker is closed by force (its connection dropped, a tick in
   * progress not waited for; its lock lapses and another worker runs it), and either way each
   * close gets at most `timeoutMs` before it is left behind.
   */
  async close(timeoutMs = 2_000): Promise<void> {
    for (const timer of this.refresh) clearInterval(timer);
    const redisAway = this.options.connection.status !== 'ready';
    const workerClosed = await settleWithin(this.worker.close(redisAway), timeoutMs);
    const queueClosed = await settleWithin(this.queue.close(), timeoutMs);
    if (!workerClosed || !queueClosed)
      this.options.onError?.(
        new Error(`maintenance queue did not close within ${timeoutMs} ms; left behind`),
      );
  }
}

/** Whether `closing` settled within `timeoutMs`; a rejection counts as settled (BullMQ emits it). */
const settleWithin = (closing: Promise<unknown>, timeoutMs: number): Promise<boolean> =>
  resultWithin(
    closing.then(
      () => true,
      () => true,
    ),
    timeoutMs,
    false,
  );
