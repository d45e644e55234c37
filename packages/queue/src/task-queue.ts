import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES, runTaskJobId, type RunTaskJob, type TaskCanceledJob } from './job-catalog.ts';
import { isRedisAway } from './commands-connection.ts';
import type { QueueKeys } from './queue-keys.ts';

/** BullMQ's priority range is 1..2^21; lower runs first. */
const MAX_PRIORITY = 2 ** 21 - 1;
/** Backlog counters fade if a crash ever leaves them off (they only steer fairness). */
const BACKLOG_TTL_S = 3600;

export interface Dispatch extends RunTaskJob {
  version: number;
  attempts: number;
  /** Not before this time (retry backoff). */
  runAfter?: Date;
  /**
   * Distinguishes a re-dispatch of the same version and attempt from the job that may still be
   * active for it (a hand-back on shutdown), which BullMQ would otherwise ignore as a duplicate.
   */
  nonce?: string;
}

/**
 * A dispatch counted into its tenant's backlog ahead of its enqueue (TaskQueue.reserve): the
 * counter's answer, and the way out when the dispatch does not come.
 */
export interface BacklogSlot {
  readonly depth: Promise<number>;
  /** The dispatch will not be enqueued (its send was a retry, or failed): count it out again. */
  release(): void;
}

/** The dispatch's job id: one job per dispatch however many processes enqueue it (runTaskJobId). */
function jobIdOf(dispatch: Dispatch): string {
  return [
    runTaskJobId(dispatch.tenantId, dispatch.taskId, dispatch.version, dispatch.attempts),
    ...(dispatch.runAfter ? [`t${dispatch.runAfter.getTime()}`] : []),
    ...(dispatch.nonce ? [dispatch.nonce] : []),
  ].join('.');
}

/** The script TaskQueue defines on its connection. */
type BacklogCommands = Redis & { syBacklogIncr(key: string, ttlSeconds: number): Promise<number> };

/** An add waiting for its turn's addBulk (TaskQueue.#add). */
interface PendingAdd {
  job: { name: string; data: RunTaskJob; opts: JobsOptions };
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The producer side of task dispatch.
 *
 * Fairness between tenants (issue: one tenant's flood must not starve another): each dispatch's
 * BullMQ priority is 1 + the number of that tenant's dispatches already waiting. A tenant with
 * 5,000 queued tasks has priorities 1..5,000; a quiet tenant's next task gets priority 1 and
 * overtakes the backlog. Within one priority BullMQ keeps FIFO order.
 */
export class TaskQueue {
  readonly queue: Queue;
  #pendingAdds: PendingAdd[] = [];
  /** The backlog counters' connection (see the constructor). */
  private readonly redis: Redis;
  private readonly keys: QueueKeys;
  /** BullMQ's connection: an add while it is away is refused, not queued (see enqueue). */
  private readonly connection: Redis;

  /**
   * `connection` is BullMQ's. `counters`, when given, carries the backlog counters instead: the
   * process's auto-pipelined connection (ProcessResources.commands), which BullMQ itself must
   * never get.
   */
  constructor({ connection, counters, keys }: { connection: Redis; counters?: Redis; keys: QueueKeys }) {
    this.redis = counters ?? connection;
    this.keys = keys;
    this.connection = connection;
    // INCR and EXPIRE in one script (EVALSHA): atomic like the MULTI it replaces, without building
    // an ioredis pipeline on every submit (a visible share of the gateway's CPU per task).
    if (!('syBacklogIncr' in this.redis)) {
      this.redis.defineCommand('syBacklogIncr', {
        numberOfKeys: 1,
        lua: "local n = redis.call('INCR', KEYS[1]) redis.call('EXPIRE', KEYS[1], ARGV[1]) return n",
      });
    }
    this.queue = new Queue(keys.taskQueue, {
      connection,
      prefix: keys.bullPrefix,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000, attempts: 1 },
    });
  }

  /**
   * Adds the dispatch's job. While Redis is away the add is refused at once: BullMQ's connection
   * never gives up on a command, so every send of a long outage used to wait in its offline queue
   * (about 5 KB each; gigabytes an hour at a few hundred sends a second), and all of them were
   * replayed at once on reconnect. The task is committed either way; the reaper dispatches it.
   */
  async enqueue(dispatch: Dispatch, slot?: BacklogSlot): Promise<void> {
    if (isRedisAway(this.connection)) {
      slot?.release();
      throw new Error('Redis is unreachable; the reaper will dispatch');
    }
    const depth = await (slot ? slot.depth : this.countIn(dispatch.tenantId));
    const delay = dispatch.runAfter ? Math.max(0, dispatch.runAfter.getTime() - Date.now()) : 0;
    const data: RunTaskJob = { tenantId: dispatch.tenantId, taskId: dispatch.taskId };
    if (dispatch.traceparent) data.traceparent = dispatch.traceparent;
    if (dispatch.tracestate) data.tracestate = dispatch.tracestate;
    await this.#add({
      name: JOB_NAMES.runTask,
      data,
      opts: { jobId: jobIdOf(dispatch), priority: Math.min(MAX_PRIORITY, Math.max(1, depth)), delay },
    });
  }

  /**
   * Adds issued in one event-loop turn leave as one `addBulk` (a MULTI of BullMQ's own add
   * scripts: one socket write and one round trip, atomic). A gateway's sends commit together
   * (group commit), so their dispatches arrive together: on a machine where a socket write costs
   * a visible share of the CPU, one write per task was the gateway's largest Redis cost. BullMQ's
   * connection is never auto-pipelined (its maintainers advise against it); this is the batching
   * its API offers. A lone add goes as a plain add.
   */
  #add(job: PendingAdd['job']): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pendingAdds.push({ job, resolve, reject });
      if (this.#pendingAdds.length === 1) process.nextTick(() => this.#flushAdds());
    });
  }

  #flushAdds(): void {
    const batch = this.#pendingAdds;
    this.#pendingAdds = [];
    const added =
      batch.length === 1
        ? this.queue.add(batch[0]!.job.name, batch[0]!.job.data, batch[0]!.job.opts)
        : this.queue.addBulk(batch.map((b) => b.job));
    added.then(
      () => batch.forEach((b) => b.resolve()),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
  }

  /**
   * Counts a dispatch into its tenant's backlog now, for an enqueue that follows a commit
   * (`enqueue(dispatch, slot)`). A send reserves its slot as its task starts to commit, so the
   * counter's round trip to Redis overlaps the one to Postgres instead of standing between the
   * commit and the add: one Redis round trip, two process hops, less between a send and its run.
   */
  reserve(tenantId: string): BacklogSlot {
    const depth = this.countIn(tenantId);
    let released = false;
    return {
      depth,
      release: () => {
        if (released) return;
        released = true;
        void depth.then(() => this.started(tenantId)).catch(() => undefined);
      },
    };
  }

  /**
   * The reaper's enqueue of a task it found unclaimed past the grace period. BullMQ ignores an add
   * whose id exists, so a dispatch whose job is still queued (a backlog longer than the grace) is
   * left alone rather than counted again: every sweep over a backlog used to add its 200 tasks to
   * the tenant's backlog counter, which then kept that tenant's next tasks behind everyone else's
   * for up to the counter's TTL. A job that failed keeps its id too (failed jobs are kept for the
   * dashboard): when a worker could not claim (Postgres restarting under the claim) or a job
   * stalled too often, every later enqueue of that dispatch vanished and the task waited forever.
   * Such a job is retried instead: back to waiting, under its id and its first priority, and
   * counted again, since the worker that took it the first time already counted it out.
   */
  async redispatch(dispatch: Dispatch): Promise<void> {
    const job = await this.queue.getJob(jobIdOf(dispatch));
    if (!job) return this.enqueue(dispatch);
    if (!(await job.isFailed())) return;
    const retried = await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }).then(
      () => true,
      async (err: unknown) => {
        // Another reaper retried it first (or it was removed): it is no longer failed either way.
        if (await job.isFailed()) throw err;
        return false;
      },
    );
    if (retried) await this.countIn(dispatch.tenantId);
  }

  /** Tells a worker that a task waiting for input or auth was canceled (see TaskCanceledJob). */
  async notifyCanceled(tenantId: string, taskId: string): Promise<void> {
    const data: TaskCanceledJob = { tenantId, taskId };
    // One notice per task: a cancel is final, so a repeated add collapses into the first.
    await this.queue.add(JOB_NAMES.taskCanceled, data, { jobId: `${tenantId}.${taskId}.canceled` });
  }

  /**
   * The tenant's backlog with this dispatch counted. Without the counters (Redis away, or the
   * command failed) the dispatch goes at priority 1: fairness is lost for a while, never the task.
   */
  private async countIn(tenantId: string): Promise<number> {
    if (isRedisAway(this.redis)) return 1;
    const key = this.keys.tenantBacklog(tenantId);
    return (this.redis as BacklogCommands).syBacklogIncr(key, BACKLOG_TTL_S).catch(() => 1);
  }

  /** Called when a worker takes a dispatch off the queue. */
  async started(tenantId: string): Promise<void> {
    if (isRedisAway(this.redis)) return;
    const key = this.keys.tenantBacklog(tenantId);
    const left = await this.redis.decr(key);
    if (left < 0) await this.redis.set(key, 0, 'EX', BACKLOG_TTL_S);
  }

  /** Depth and age of the oldest waiting job, for metrics and the console. */
  async stats(): Promise<{
    waiting: number;
    active: number;
    delayed: number;
    failed: number;
    oldestWaitingAgeMs: number;
  }> {
    const counts = await this.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
    const oldest = [
      ...(await this.queue.getJobs(['prioritized'], 0, 0, true)),
      ...(await this.queue.getJobs(['waiting'], 0, 0, true)),
    ];
    const oldestTs = oldest.reduce((min, j) => Math.min(min, j.timestamp), Number.POSITIVE_INFINITY);
    return {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      oldestWaitingAgeMs: Number.isFinite(oldestTs) ? Date.now() - oldestTs : 0,
    };
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
