import { Job, type JobJson } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES, type RunTaskJob, type TaskCanceledJob } from './job-catalog.ts';
import type { QueueKeys } from './queue-keys.ts';
import { DispatchWorker } from './dispatch-worker.ts';
import { TenantRunCap, type HeldSlot } from './tenant-run-cap.ts';

export interface TaskConsumerOptions {
  connection: Redis;
  keys: QueueKeys;
  /** Agent runs at once in this process. */
  concurrency: number;
  handle(job: RunTaskJob): Promise<void>;
  /** A task-canceled notice (TaskCanceledJob); ignored when absent. */
  handleCanceled?(job: TaskCanceledJob): Promise<void>;
  onError?(err: unknown): void;
  /**
   * Told each job's BullMQ priority as the job is taken (TaskQueue.taken: the fair order's
   * current level follows the work taken); not awaited.
   */
  onTaken?(priority: number): void;
  /**
   * How long a taken job stays locked without a renewal; renewed every half of it while its
   * handler runs. A job whose process died is back in waiting within about twice this (BullMQ's
   * stalled check runs at the same interval). Default 30 s, BullMQ's own.
   */
  lockMs?: number;
  /**
   * How long an idle blocking wait lasts, in seconds; close() waits out the one in flight (the
   * manual API leaves BullMQ's interrupt unused), so it is short. Default 1: two Redis commands a
   * second per idle process.
   */
  idleWaitSeconds?: number;
  /**
   * Caps on one tenant's runs at once across every consumer of the queue (TenantRunCap); a job
   * taken past its tenant's cap waits, parked, for one of the tenant's runs to end. `capFor` gives
   * a tenant's own cap (null: `maxRunning`, the default for all; 0: no cap). Every consumer of a
   * queue should be given the same. Absent, or no cap for a tenant: its runs are not counted.
   */
  tenantRunCap?: {
    maxRunning?: number;
    capFor?(tenantId: string): Promise<number | null>;
    minParkMs?: number;
  };
  /** Told each job parked by the cap, with its tenant. */
  onParked?(tenantId: string): void;
  /**
   * Whether a handler's failure says a dependency is away (Postgres unreachable), not that the
   * job is bad. Such a job is not failed: it goes back to the queue after a pause, and fetching
   * pauses as long, so an outage does not run the whole queue through failing claims.
   */
  isTransient?(err: unknown): boolean;
}

interface RunningJob {
  job: Job;
  /** The token it was taken with: its lock's value. */
  token: string;
  /** Its handler is done and its completion is on the way. */
  finishing: boolean;
  done: Promise<void>;
  /** The tenant run slot it holds, under a per-tenant cap. */
  slot?: HeldSlot;
}

/** The longest pause between fetch attempts while Redis fails them. */
const MAX_FETCH_BACKOFF_MS = 5_000;

/** The first pause after a transient handler failure (isTransient); it doubles up to the above. */
const FIRST_TRANSIENT_PAUSE_MS = 500;

/** A pause ended longer ago than this is forgotten: the next transient failure starts over. */
const TRANSIENT_PAUSE_FORGOTTEN_MS = 30_000;

/**
 * The consumer side of task dispatch: takes run-task jobs off the BullMQ queue and hands each to
 * `handle`. The job stays active while the agent runs, so `concurrency` bounds the runs per
 * process; the Postgres lease (not BullMQ's lock) decides who may write, so a stalled job
 * re-delivered elsewhere is harmless: its claim fails.
 *
 * It fetches through BullMQ's manual API rather than a processor-driven Worker, for latency on an
 * idle queue. BullMQ's own loop, after a blocking wait hands it a job, asks Redis for one more
 * before it starts the first (to fill its other slots), and that second request finds nothing
 * when work arrives one task at a time: a Redis round trip between every dispatch and its agent,
 * on a path of about nine hops between processes, each of which waits for a CPU on a busy
 * machine. Here a job is started the moment it is taken, and the next fetch goes meanwhile. The
 * price is doing by hand what the Worker's loop did: renewing the locks of running jobs and
 * running BullMQ's stalled-job check.
 */
export class TaskConsumer {
  readonly worker: DispatchWorker;
  readonly #options: TaskConsumerOptions;
  readonly #lockMs: number;
  readonly #runCap: TenantRunCap | null;
  /**
   * Running jobs, by take: a job whose lock lapsed can be taken again by this very process while
   * its first run goes on, so a job id may be here twice, and each take holds its own slot.
   */
  readonly #running = new Map<number, RunningJob>();
  #takeSeq = 0;
  #fetching: Promise<void> | null = null;
  #stopped = false;
  #renewTimer: NodeJS.Timeout | null = null;
  /** Wakes the fetch loop when a slot frees up. */
  #slotFreed: (() => void) | null = null;
  #tokenSeq = 0;
  /** Fetching waits until then after a transient handler failure (Postgres away). */
  #pausedUntil = 0;
  #transientPauseMs = 0;

  constructor(options: TaskConsumerOptions) {
    this.#options = options;
    this.#lockMs = options.lockMs ?? 30_000;
    this.worker = new DispatchWorker(options.keys.taskQueue, null, {
      connection: options.connection,
      prefix: options.keys.bullPrefix,
      concurrency: options.concurrency,
      autorun: false,
      drainDelay: options.idleWaitSeconds ?? 1,
      lockDuration: this.#lockMs,
      stalledInterval: this.#lockMs,
      // A job whose process died goes back to waiting; the claim CAS keeps this harmless.
      maxStalledCount: 10,
    });
    this.worker.on('error', (err) => this.#error(err));
    this.#runCap = options.tenantRunCap
      ? new TenantRunCap({
          queue: this.worker,
          connection: options.connection,
          keys: options.keys,
          leaseMs: this.#lockMs,
          ...(options.tenantRunCap.minParkMs ? { minParkMs: options.tenantRunCap.minParkMs } : {}),
        })
      : null;
  }

  start(): void {
    if (this.#fetching || this.#stopped) return;
    this.worker.startStalledCheckTimer().catch((err: unknown) => this.#error(err));
    this.#renewTimer = setInterval(() => void this.#renewLocks(), this.#lockMs / 2);
    this.#renewTimer.unref();
    this.#fetching = this.#fetchLoop();
  }

  /** Stop taking new jobs; running handlers continue (and keep their locks). */
  async pause(): Promise<void> {
    this.#stopped = true;
    this.#slotFreed?.();
    // A blocking wait in flight can still take a job (for at most drainDelay); the fetch loop
    // then hands it back to the queue.
    await Promise.race([this.#fetching, new Promise((r) => setTimeout(r, 50))]);
  }

  /** Waits for running handlers unless `force`. */
  async close(force = false): Promise<void> {
    this.#stopped = true;
    this.#slotFreed?.();
    if (!force) await Promise.all([...this.#running.values()].map((r) => r.done));
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    this.#renewTimer = null;
    await this.worker.close(force);
    await this.#fetching;
  }

  async #fetchLoop(): Promise<void> {
    let backoffMs = 0;
    while (!this.#stopped) {
      if (this.#running.size >= this.#options.concurrency) {
        await new Promise<void>((resolve) => (this.#slotFreed = resolve));
        this.#slotFreed = null;
        continue;
      }
      const pauseMs = this.#pausedUntil - Date.now();
      if (pauseMs > 0) {
        // Short steps, so close() is not held up by a whole pause.
        await new Promise((r) => setTimeout(r, Math.min(pauseMs, 250)));
        continue;
      }
      const token = `${this.worker.id}:${this.#tokenSeq++}`;
      let job: Job | undefined;
      try {
        job = await this.worker.getNextJob(token, { block: true });
        backoffMs = 0;
      } catch (err) {
        if (this.#stopped) break;
        this.#error(err);
        backoffMs = Math.min(MAX_FETCH_BACKOFF_MS, Math.max(250, backoffMs * 2));
        await new Promise((r) => setTimeout(r, backoffMs));
        continue;
      }
      if (!job) continue;
      if (this.#stopped) {
        await this.#handBack(job, token);
        continue;
      }
      this.#start(job, token);
      await this.#skipEmptyFetches();
    }
  }

  /** After a take: when no other job waits, the next fetch blocks at once (DispatchWorker). */
  async #skipEmptyFetches(): Promise<void> {
    try {
      await this.worker.moreWaiting(this.#options.connection);
    } catch (err) {
      // Only costs the empty fetches it would have saved; a lost connection shows at the next one.
      if (!this.#stopped) this.#error(err);
    }
  }

  /**
   * A job the blocking wait took after pause or close began goes back to waiting for another
   * worker at once, rather than waiting out its lock and the stalled check (the reaper cannot
   * re-add it meanwhile: its id is taken).
   */
  async #handBack(job: Job, token: string): Promise<void> {
    try {
      await job.moveToWait(token);
      // A prioritized job goes back without the marker that wakes blocked workers (BullMQ's
      // pushBackJobWithPriority): without this, an idle worker would find it only when its
      // blocking wait timed out.
      const marker = this.worker.keys.marker;
      if (marker) await this.#options.connection.zadd(marker, 0, '0');
    } catch (err) {
      this.#error(err);
    }
  }

  #start(job: Job, token: string): void {
    if (job.priority > 0) this.#options.onTaken?.(job.priority);
    const take = this.#takeSeq++;
    const running: RunningJob = { job, token, finishing: false, done: Promise.resolve() };
    this.#running.set(take, running);
    running.done = this.#run(running).then(async (next) => {
      this.#running.delete(take);
      if (next && this.#stopped) await this.#handBack(next, token);
      else if (next) this.#start(next, token);
      this.#slotFreed?.();
    });
  }

  /**
   * Runs one job's handler, then completes the job (or fails it, for the dashboard and the
   * reaper). A completion takes the next waiting job in the same round trip, into the slot of the
   * run it ends, as BullMQ's own loop does: under load the runs then start together, and their
   * claims share statements (the store's group commit), where a single fetch loop would hand them
   * out one round trip apart.
   */
  async #run(running: RunningJob): Promise<Job | undefined> {
    const { job, token } = running;
    if (!(await this.#admit(running))) {
      running.finishing = true;
      return undefined;
    }
    let failure: Error | null = null;
    try {
      if (job.name === JOB_NAMES.runTask) await this.#options.handle(job.data as RunTaskJob);
      else if (job.name === JOB_NAMES.taskCanceled)
        await this.#options.handleCanceled?.(job.data as TaskCanceledJob);
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
    }
    // Its lock is no longer renewed: a renewal racing the completion would report it lost.
    running.finishing = true;
    this.#releaseSlot(running);
    try {
      if (failure && this.#options.isTransient?.(failure)) {
        await job.moveToDelayed(Date.now() + this.#pauseForTransient(), token);
        return undefined;
      }
      if (failure) {
        await job.moveToFailed(failure, token, false);
        return undefined;
      }
      this.#transientPauseMs = 0;
      // The next job takes this one's slot, so the count never rises: the fetch loop only asks
      // while a slot is free, and a completion only replaces the run it ends.
      return this.#jobFrom(await job.moveToCompleted(null, token, !this.#stopped));
    } catch (err) {
      // Most often the lock was lost (this process was frozen past it, or Redis lost the job):
      // the job is someone else's now, and the Postgres lease already decided who ran the task.
      this.#error(err);
      return undefined;
    }
  }

  /**
   * Under a per-tenant cap, takes a run slot for a run-task job; false when the job was parked
   * instead (it is no longer this consumer's). Redis failing the slot's script or the move to
   * delayed runs the job: the cap is advisory, and the Postgres lease decides who runs a task.
   */
  async #admit(running: RunningJob): Promise<boolean> {
    if (!this.#runCap || running.job.name !== JOB_NAMES.runTask) return true;
    const { tenantId } = running.job.data as RunTaskJob;
    try {
      const cap = await this.#capOf(tenantId);
      if (cap <= 0) return true;
      const slot = await this.#runCap.admit(running.job, running.token, tenantId, cap);
      if (!slot) {
        this.#options.onParked?.(tenantId);
        return false;
      }
      running.slot = slot;
    } catch (err) {
      this.#error(err);
    }
    return true;
  }

  /** The tenant's cap: its own when it has one (a failed read: the default), else the default. */
  async #capOf(tenantId: string): Promise<number> {
    const { maxRunning = 0, capFor } = this.#options.tenantRunCap ?? {};
    const own = capFor ? await capFor(tenantId).catch(() => null) : null;
    return own ?? maxRunning;
  }

  /**
   * A transient failure (Postgres away): fetching pauses, doubling from FIRST_TRANSIENT_PAUSE_MS
   * up to MAX_FETCH_BACKOFF_MS while failures go on, and the job is due again after the pause.
   * Failed instead, every queued job would be taken and failed in a few milliseconds each, and
   * only the reaper's sweeps (500 tasks each) would bring them back.
   */
  #pauseForTransient(): number {
    // An outage that ended long ago says nothing about this one: long runs may keep any job from
    // completing (which resets the pause) for minutes, and a lone blip must not pause 5 s.
    if (Date.now() - this.#pausedUntil > TRANSIENT_PAUSE_FORGOTTEN_MS) this.#transientPauseMs = 0;
    this.#transientPauseMs = Math.min(
      MAX_FETCH_BACKOFF_MS,
      Math.max(FIRST_TRANSIENT_PAUSE_MS, this.#transientPauseMs * 2),
    );
    this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + this.#transientPauseMs);
    return this.#transientPauseMs;
  }

  #releaseSlot(running: RunningJob): void {
    const { slot } = running;
    if (!slot || !this.#runCap) return;
    running.slot = undefined;
    // Not awaited: the completion need not wait for it. A release lost to Redis leaves the slot to
    // lapse with its renewals, and the parked jobs to their own delay.
    this.#runCap.release(slot).catch((err: unknown) => this.#error(err));
  }

  /** The job a completion fetched (moveToCompleted's [data, id, ...]), if it found one. */
  #jobFrom(fetched: void | unknown[]): Job | undefined {
    if (!Array.isArray(fetched)) return undefined;
    const [data, id] = fetched as [JobJson | undefined, string | undefined];
    return data && id ? Job.fromJSON(this.worker, data, id) : undefined;
  }

  async #renewLocks(): Promise<void> {
    const running = [...this.#running.values()].filter((r) => !r.finishing);
    if (running.length === 0) return;
    const slots = running.flatMap((r) => (r.slot ? [r.slot] : []));
    if (this.#runCap && slots.length > 0) this.#runCap.renew(slots).catch((err: unknown) => this.#error(err));
    try {
      const lost = await this.worker.extendJobLocks(
        running.map((r) => r.job.id!),
        running.map((r) => r.token),
        this.#lockMs,
      );
      // A lost lock means the stalled check already gave the job back to the queue; its run here
      // continues under its Postgres lease, and the copy's claim fails.
      if (lost.length > 0) this.#error(new Error(`BullMQ locks lost for jobs ${lost.join(', ')}`));
    } catch (err) {
      this.#error(err);
    }
  }

  #error(err: unknown): void {
    this.#options.onError?.(err);
  }
}
