import { Job, Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@switchyard/telemetry';
import { JOB_NAMES, runTaskJobId, type RunTaskJob, type TaskCanceledJob } from './job-catalog.ts';
import { isRedisAway } from './commands-connection.ts';
import type { QueueKeys } from './queue-keys.ts';

/** BullMQ's priority range is 1..2^21; lower runs first. */
const MAX_PRIORITY = 2 ** 21 - 1;
/**
 * Dispatches one tenant puts on one priority level before its next go on the level above: how
 * far a newcomer may wait behind each backlogged tenant (this many of its jobs, at most, per
 * level), and, since levels climb by one per this many jobs of the busiest tenant, how slowly
 * they near BullMQ's ceiling (2^21 levels = 42 million dispatches of one unbroken backlog).
 */
const JOBS_PER_LEVEL = 20;
/** How many jobs in line the oldest-waiting figure looks at (TaskQueue.stats). */
const OLDEST_SAMPLE = 100;
/** A tenant's place fades after an hour without dispatches (it only steers order). */
const FAIR_STATE_TTL_S = 3600;
/** Past this level, the next time nothing waits, every tenant starts again from level 1. */
const LEVEL_RESTART = 2 ** 20;

/**
 * The fair-order script: a dispatch's BullMQ priority (its level). KEYS: the queue's prioritized
 * set, the level floor, the epoch, the tenant's place (a hash: epoch, level, used). ARGV: jobs per
 * level, the place's TTL, the restart level, the ceiling.
 *
 * The current level is the virtual time of start-time fair queueing: the level of the work being
 * taken. It is the higher of the floor, which every take raises to the taken job's level
 * (FAIR_TAKEN_LUA), and the level of the job that runs next (the head of BullMQ's prioritized
 * set, whose score is priority * 2^32 + a FIFO counter). A tenant whose place is below it (quiet
 * until now, or new) starts at the current level, right behind what runs next; one already above
 * it continues where it is. Every JOBS_PER_LEVEL dispatches its place moves up a level. So a
 * tenant's own dispatches never go backwards (FIFO within a tenant: a later one is never ahead of
 * an earlier one), and tenants with backlogs take turns by levels. Within a level BullMQ keeps
 * FIFO order. (Were the floor moved by the head alone, a tenant whose every task was taken before
 * the next came would climb while the floor stood still, and its next task would queue behind a
 * newcomer's whole flood.)
 */
const FAIR_LEVEL_LUA = `
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local floor = tonumber(redis.call('GET', KEYS[2]) or '1')
local epoch = tonumber(redis.call('GET', KEYS[3]) or '0')
local current = floor
if head[2] then
  current = math.max(floor, math.floor(tonumber(head[2]) / 4294967296))
elseif floor > tonumber(ARGV[3]) then
  epoch = redis.call('INCR', KEYS[3])
  current = 1
end
if current ~= floor then redis.call('SET', KEYS[2], current) end
local place = redis.call('HMGET', KEYS[4], 'epoch', 'level', 'used')
local level, used = 0, 0
if tonumber(place[1]) == epoch then
  level = tonumber(place[2])
  used = tonumber(place[3])
end
if level < current then
  level = current
  used = 0
elseif used >= tonumber(ARGV[1]) then
  level = level + 1
  used = 0
end
redis.call('HSET', KEYS[4], 'epoch', epoch, 'level', level, 'used', used + 1)
redis.call('EXPIRE', KEYS[4], ARGV[2])
return math.min(level, tonumber(ARGV[4]))
`;

/** A take raises the fair order's floor to the taken job's level (KEYS: the floor; ARGV: the level). */
const FAIR_TAKEN_LUA = `
if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
end
`;

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
 * A dispatch's place in the fair order, asked for ahead of its enqueue (TaskQueue.reserve). One
 * that is never enqueued (its send was a retry, or failed) only moves its tenant on to the next
 * level one dispatch sooner.
 */
export interface BacklogSlot {
  readonly priority: Promise<number>;
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
type FairOrderCommands = Redis & {
  syFairLevel(
    ...keysAndArgs: [string, string, string, string, number, number, number, number]
  ): Promise<number>;
  syFairTaken(floorKey: string, level: number): Promise<unknown>;
};

/** An add waiting for its turn's addBulk (TaskQueue.#add). */
interface PendingAdd {
  job: { name: string; data: RunTaskJob; opts: JobsOptions };
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Parked jobs rescheduled at once by releaseParked (each a lookup and a script). */
const RELEASE_CONCURRENCY = 16;

/**
 * Enqueues a queue lets wait for Redis's answer at once (a few KB each): a Redis that hangs
 * without dropping the connection held every send's add in memory, gigabytes an hour.
 */
export const MAX_UNANSWERED_ENQUEUES = 10_000;

/**
 * The producer side of task dispatch.
 *
 * Fairness between tenants (issue: one tenant's flood must not starve another) and FIFO within
 * each: a dispatch's BullMQ priority is its tenant's level in a fair order (FAIR_LEVEL_LUA). A
 * tenant that queues 5,000 tasks fills levels L..L+249; a quiet tenant's next task goes on the
 * level that runs next and overtakes the rest of that backlog. The earlier scheme (priority = the
 * tenant's backlog depth) ran a tenant's new tasks ahead of its own older ones once its backlog
 * had shrunk, so under steady load the tail of a burst waited until arrivals stopped.
 */
export class TaskQueue {
  readonly queue: Queue;
  #pendingAdds: PendingAdd[] = [];
  /** Enqueues sent and not answered yet, and how many may be (see enqueue). */
  #unanswered = 0;
  readonly #maxUnanswered: number;
  /** The fair-order scripts' connection (see the constructor). */
  private readonly redis: Redis;
  private readonly keys: QueueKeys;
  /** BullMQ's connection: an add while it is away is refused, not queued (see enqueue). */
  private readonly connection: Redis;

  /**
   * `connection` is BullMQ's. `counters`, when given, carries the fair-order scripts instead: the
   * process's auto-pipelined connection (ProcessResources.commands), which BullMQ itself must
   * never get.
   */
  constructor({
    connection,
    counters,
    keys,
    log,
    maxUnanswered = MAX_UNANSWERED_ENQUEUES,
  }: {
    connection: Redis;
    counters?: Redis;
    keys: QueueKeys;
    /** Where the queue's errors go, throttled (quietQueueErrors). */
    log?: Logger;
    /** Enqueues waiting for Redis's answer at most (see enqueue). */
    maxUnanswered?: number;
  }) {
    this.#maxUnanswered = maxUnanswered;
    this.redis = counters ?? connection;
    this.keys = keys;
    this.connection = connection;
    // One script (EVALSHA): atomic, and one round trip per dispatch.
    if (!('syFairLevel' in this.redis)) {
      this.redis.defineCommand('syFairLevel', { numberOfKeys: 4, lua: FAIR_LEVEL_LUA });
      this.redis.defineCommand('syFairTaken', { numberOfKeys: 1, lua: FAIR_TAKEN_LUA });
    }
    this.queue = new Queue(keys.taskQueue, {
      connection,
      prefix: keys.bullPrefix,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000, attempts: 1 },
    });
    quietQueueErrors(this.queue, log && throttledErrors(log, 'task queue: Redis error; retrying'));
  }

  /**
   * Adds the dispatch's job. While Redis is away the add is refused at once: BullMQ's connection
   * never gives up on a command, so every send of a long outage used to wait in its offline queue
   * (about 5 KB each; gigabytes an hour at a few hundred sends a second), and all of them were
   * replayed at once on reconnect. The task is committed either way; the reaper dispatches it.
   */
  async enqueue(dispatch: Dispatch, slot?: BacklogSlot): Promise<void> {
    this.#refuseUnlessRedisAnswers('the reaper will dispatch');
    this.#unanswered++;
    try {
      await this.#enqueue(dispatch, slot);
    } finally {
      this.#unanswered--;
    }
  }

  /**
   * Refuses at once while Redis is away, or connected but not answering (frozen, swamped): the
   * bound of unanswered enqueues is reached. Either way a command would wait in memory without
   * end, one per send.
   */
  #refuseUnlessRedisAnswers(consequence: string): void {
    if (isRedisAway(this.connection)) throw new Error(`Redis is unreachable; ${consequence}`);
    if (this.#unanswered >= this.#maxUnanswered)
      throw new Error(`Redis has not answered ${this.#unanswered} enqueues; ${consequence}`);
  }

  async #enqueue(dispatch: Dispatch, slot?: BacklogSlot): Promise<void> {
    const priority = await (slot ? slot.priority : this.levelFor(dispatch.tenantId));
    const delay = dispatch.runAfter ? Math.max(0, dispatch.runAfter.getTime() - Date.now()) : 0;
    const data: RunTaskJob = { tenantId: dispatch.tenantId, taskId: dispatch.taskId };
    if (dispatch.traceparent) data.traceparent = dispatch.traceparent;
    if (dispatch.tracestate) data.tracestate = dispatch.tracestate;
    if (dispatch.outageRefunds) data.outageRefunds = dispatch.outageRefunds;
    await this.#add({
      name: JOB_NAMES.runTask,
      data,
      opts: { jobId: jobIdOf(dispatch), priority: Math.min(MAX_PRIORITY, Math.max(1, priority)), delay },
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
   * Asks for a dispatch's place in the fair order now, for an enqueue that follows a commit
   * (`enqueue(dispatch, slot)`). A send reserves its slot as its task starts to commit, so the
   * script's round trip to Redis overlaps the one to Postgres instead of standing between the
   * commit and the add: one Redis round trip, two process hops, less between a send and its run.
   */
  reserve(tenantId: string): BacklogSlot {
    return { priority: this.levelFor(tenantId) };
  }

  /**
   * The reaper's enqueue of a task it found unclaimed past the grace period. BullMQ ignores an add
   * whose id exists, so a dispatch whose job is still queued (a backlog longer than the grace) is
   * left alone rather than given a new place: every sweep over a backlog would move the tenant's
   * place in the fair order on by the tasks of its sweep, behind everyone else's. A job that failed keeps its id too (failed jobs are kept for the
   * dashboard): when a worker could not claim (Postgres restarting under the claim) or a job
   * stalled too often, every later enqueue of that dispatch vanished and the task waited forever.
   * Such a job is retried instead: back to waiting, under its id and its first priority.
   * Resolves to whether a job was added or retried (false: its job was queued already).
   */
  async redispatch(dispatch: Dispatch): Promise<boolean> {
    this.#refuseUnlessRedisAnswers('the next sweep will dispatch');
    const job = await this.queue.getJob(jobIdOf(dispatch));
    if (!job) {
      await this.enqueue(dispatch);
      return true;
    }
    if (!(await job.isFailed())) return false;
    return job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }).then(
      () => true,
      async (err: unknown) => {
        // Another reaper retried it first (or it was removed): it is no longer failed either way.
        if (await job.isFailed()) throw err;
        return false;
      },
    );
  }

  /**
   * Tells a worker that a task no run was working on was canceled (see TaskCanceledJob). Refused
   * at once while Redis is away, as enqueue is: BullMQ's connection would hold it until Redis
   * came back.
   */
  async notifyCanceled(tenantId: string, taskId: string): Promise<void> {
    this.#refuseUnlessRedisAnswers('the cancel notice is dropped');
    const data: TaskCanceledJob = { tenantId, taskId };
    // One notice per task: a cancel is final, so a repeated add collapses into the first.
    await this.queue.add(JOB_NAMES.taskCanceled, data, { jobId: `${tenantId}.${taskId}.canceled` });
  }

  /**
   * The dispatch's level in the fair order (FAIR_LEVEL_LUA). Without Redis for it (away, or the
   * script failed) the dispatch goes at priority 1: fairness is lost for a while, never the task.
   */
  private async levelFor(tenantId: string): Promise<number> {
    // Not asked of a Redis that does not answer: each send would leave one more call waiting.
    if (isRedisAway(this.redis) || this.#unanswered >= this.#maxUnanswered) return 1;
    const { keys } = this;
    return (this.redis as FairOrderCommands)
      .syFairLevel(
        `${keys.bullPrefix}:${keys.taskQueue}:prioritized`,
        keys.fairLevelFloor,
        keys.fairEpoch,
        keys.tenantFairPlace(tenantId),
        JOBS_PER_LEVEL,
        FAIR_STATE_TTL_S,
        LEVEL_RESTART,
        MAX_PRIORITY,
      )
      .catch(() => 1);
  }

  /**
   * A worker took a job of this level: the fair order's current level follows the work taken.
   * Sent on the auto-pipelined connection with the claim's hint; a lost one only leaves the floor
   * lower for a while (the head of the queue still carries it).
   */
  taken(level: number): void {
    if (isRedisAway(this.redis)) return;
    void (this.redis as FairOrderCommands)
      .syFairTaken(this.keys.fairLevelFloor, level)
      .catch(() => undefined);
  }

  /**
   * Brings a tenant's parked runs (TenantRunCap) back in `afterMs`, oldest first, at most
   * `limit` of them: after its run cap was raised or removed they would otherwise wait out their
   * own delays (10 s to 5 min). `afterMs` must outlast the workers' cached read of the tenant's
   * cap, or they would park the jobs again under the old one; those still over the new cap are
   * parked again when taken, keeping their place. Returns how many were rescheduled.
   */
  async releaseParked(tenantId: string, afterMs: number, limit = 1000): Promise<number> {
    const ids = await this.redis.zrange(this.keys.tenantParkedRuns(tenantId), '0', String(limit - 1));
    let rescheduled = 0;
    for (let i = 0; i < ids.length; i += RELEASE_CONCURRENCY) {
      await Promise.all(
        ids.slice(i, i + RELEASE_CONCURRENCY).map(async (id) => {
          // Gone, or no longer delayed (its own delay brought it back): nothing to do.
          const job = await Job.fromId(this.queue, id).catch(() => undefined);
          const moved = job
            ? await job.changeDelay(afterMs).then(
                () => true,
                () => false,
              )
            : false;
          if (moved) rescheduled++;
        }),
      );
    }
    return rescheduled;
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
    // In the fair order the job that runs next need not be the oldest: a backlogged tenant's older
    // jobs wait on the levels above a newcomer's. Each tenant's oldest job is its first in line,
    // so the oldest of the first OLDEST_SAMPLE in line is the oldest waiting unless more than that
    // many jobs of other tenants stand ahead of it.
    const oldest = [
      ...(await this.queue.getJobs(['prioritized'], 0, OLDEST_SAMPLE - 1, true)),
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

/** While errors persist, at most one line per this long. */
export const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * Gives a BullMQ queue (or worker) an `error` listener. Without one, BullMQ's emit prints the error
 * raw to stderr: during a Redis outage a multi-line, non-JSON dump per reconnect attempt per
 * queue, in a log that is otherwise one JSON object per line. With no `report`, the errors
 * are only kept off the console: the queue's errors are mostly its connection's, which the
 * connection's own listener logs (openProcessResources).
 */
export function quietQueueErrors(
  emitter: { on(event: 'error', listener: (err: Error) => void): unknown },
  report?: (err: unknown) => void,
): void {
  emitter.on('error', (err) => report?.(err));
}

/**
 * Reports a stream of errors that one fault produces over and over (an error per reconnect
 * attempt) as its first error at warn, then at most one line per `everyMs` while it persists,
 * each with how many errors it stands for (`repeated`). The same policy as @switchyard/runtime's
 * throttledErrors, which this package, below it, cannot import.
 */
export function throttledErrors(
  log: Logger,
  message: string,
  { everyMs = ERROR_LOG_INTERVAL_MS, now = Date.now }: { everyMs?: number; now?: () => number } = {},
): (err: unknown) => void {
  return throttled(
    (err, repeated) =>
      repeated === 1 ? log.warn({ err }, message) : log.warn({ err, repeated }, `${message} (still failing)`),
    { everyMs, now },
  );
}

/**
 * Calls `report` for the first error and then for the first one after each quiet `everyMs`, with
 * how many errors that call stands for (1 for the first, the passed-over ones plus itself after).
 */
export function throttled(
  report: (err: unknown, repeated: number) => void,
  { everyMs = ERROR_LOG_INTERVAL_MS, now = Date.now }: { everyMs?: number; now?: () => number } = {},
): (err: unknown) => void {
  let reportedAt: number | undefined;
  let passedOver = 0;
  return (err) => {
    const at = now();
    if (reportedAt !== undefined && at - reportedAt < everyMs) {
      passedOver += 1;
      return;
    }
    report(err, reportedAt === undefined ? 1 : passedOver + 1);
    reportedAt = at;
    passedOver = 0;
  };
}
