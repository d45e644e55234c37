import { randomUUID } from 'node:crypto';
import { TaskState } from '@switchyard/protocol';
import type { DispatchPosition, LapsedTask, TaskRecord, TaskStore } from '@switchyard/store';
import { resultWithin } from '@switchyard/queue';
import type { Logger, TaskMetrics } from '@switchyard/telemetry';
import { retryDelayMs, type EngineConfig } from './engine-config.ts';
import type { Dispatcher } from './ports.ts';
import { statusEvent } from './task-events.ts';
import type { TaskWriter } from './task-writer.ts';
import { unheardAfterMs, unheardCancelCheck } from './unheard-cancel.ts';

/** Where the reaper's dispatch scan stands, kept where every worker's reaper reads it. */
export interface ScanPositionStore {
  load(): Promise<DispatchPosition | undefined>;
  /** Undefined: the next scan begins at the oldest. */
  save(position: DispatchPosition | undefined): Promise<void>;
}

/**
 * Dispatchable tasks one sweep re-enqueues at most, by default: after a Redis flush, or when a
 * disabled tenant with a backlog is enabled, the sweeps re-dispatch 250 tasks a second (one sweep
 * in 2 s). Each is a Redis round trip or three (redispatch), so they go DISPATCH_CONCURRENCY at a
 * time; and a queued backlog older than the grace costs one job lookup a task, so not more.
 */
const DISPATCHES_PER_SWEEP = 500;
const DISPATCH_CONCURRENCY = 8;
/**
 * Unleased live tasks one sweep reads at most: a disabled tenant's backlog, which is not
 * dispatched, is walked past this many a sweep (a million queued: under an hour at one sweep in
 * 2 s) rather than read whole by every sweep that reaches it.
 */
const DISPATCH_SCAN_READ = 1000;
/** How long a sweep waits for Redis to read or keep the shared scan position. */
const SCAN_POSITION_WAIT_MS = 1000;
/**
 * Sweeps in a row that may begin again at the same task after its dispatch failed: enough to
 * ride out a Redis restart, few enough that a task whose dispatch always fails does not hold the
 * scan there (nothing past it would be looked at again).
 */
const MAX_HELD_SWEEPS = 3;

/** What a sweep does, as switchyard_reaper_actions_total's `action` label. */
const REAPER_ACTIONS = ['requeued', 'failed', 'dispatched', 'cancel-notice'] as const;

export const LEASE_EXHAUSTED_MESSAGE = 'The task could not be completed: its workers stopped responding.';

export interface ReaperStats {
  requeued: number;
  failed: number;
  dispatched: number;
  /** Canceled tasks whose run never heard the cancel, given a check that tells their agent. */
  cancelNotices: number;
  /** Tasks this sweep could not handle; the next sweep tries them again. */
  errors: number;
}

/**
 * Re-dispatches lost work (ARCHITECTURE.md §3 rule 4): tasks whose lease lapsed (a lapsed lease is
 * an attempt, with the same backoff and limit as an error) and runnable tasks nobody claimed
 * (their job was lost, e.g. Redis flushed). Every action is guarded in Postgres, so any number of
 * reapers may run at once; BullMQ job ids derived from the row dedupe their enqueues.
 */
export class Reaper {
  private readonly deps: {
    store: TaskStore;
    writer: TaskWriter;
    dispatcher: Dispatcher;
    config: EngineConfig;
    log: Logger;
    metrics?: TaskMetrics;
    /**
     * Asks whether this reaper should sweep now. Sweeps are safe in any number, but a hundred idle
     * workers each scanning Postgres every interval is busy polling: the worker runtime lets one
     * reaper per interval sweep (a Redis turn) and, when Redis cannot answer, sweeps every few intervals (sweepsOn).
     */
    takeTurn?: () => Promise<boolean>;
    /**
     * Where the dispatch scan stands, shared by every worker's reaper (the turn moves between
     * them): the worker runtime keeps it in Redis. Without it, or when Redis cannot answer, each
     * reaper keeps its own.
     */
    scanPosition?: ScanPositionStore;
    /** Dispatchable tasks one sweep re-enqueues at most (DISPATCHES_PER_SWEEP; tests set it). */
    dispatchesPerSweep?: number;
    /**
     * Hears a task this reaper failed (its lease lapsed on the last attempt): the worker runtime
     * calls the agent's onFailed hook. Not awaited; its errors are its own to log.
     */
    onFailed?: (task: TaskRecord) => Promise<void>;
  };
  private timer: NodeJS.Timeout | null = null;
  /** Where the next sweep's dispatch scan continues (findDispatchable); undefined: the oldest. */
  private dispatchPosition: DispatchPosition | undefined;
  private running: Promise<unknown> | null = null;
  /** Where failed dispatches last held the scan, and for how many sweeps in a row. */
  private heldAt: DispatchPosition | undefined;
  private heldSweeps = 0;
  /** When this reaper last began a sweep (performance.now()); none yet: the first may go at once. */
  private lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(deps: Reaper['deps']) {
    this.deps = deps;
    // Every action's series at 0 from the start: a counter born at its first increment shows no
    // increase() for it, and an alert on tasks failed by the reaper would miss the first one.
    for (const action of REAPER_ACTIONS) deps.metrics?.reaperAction(action, 0);
  }

  start(): void {
    const tick = () => {
      const turn = this.deps.takeTurn ? askTurn(this.deps.takeTurn) : Promise.resolve('mine' as const);
      this.running = turn
        .then((answer) => (this.sweepsOn(answer) ? this.sweep() : undefined))
        .catch((err: unknown) => this.deps.log.error({ err }, 'reaper sweep failed'))
        .finally(() => {
          this.running = null;
          // Jitter spreads many workers' reapers apart.
          if (this.timer)
            this.timer = setTimeout(tick, this.deps.config.reaperIntervalMs * (0.75 + Math.random() / 2));
        });
    };
    this.timer = setTimeout(tick, this.deps.config.reaperIntervalMs * Math.random());
  }

  /**
   * Whether to sweep on this answer of the turn. When Redis cannot say, every worker would sweep
   * every interval (a fleet of fifty, some 25 scans of Postgres a second, just when the system is
   * degraded, and the re-dispatches need the Redis that is away); each sweeps then only every
   * UNKNOWN_TURN_SWEEP_EVERY intervals, which still recovers what needs only Postgres (a lease
   * lapsed on its last attempt is failed).
   */
  private sweepsOn(answer: TurnAnswer): boolean {
    if (answer === 'not mine') return false;
    // Monotonic: a wall clock stepped back would stop these sweeps until it caught up.
    const now = performance.now();
    const spacing = this.deps.config.reaperIntervalMs * UNKNOWN_TURN_SWEEP_EVERY;
    if (answer === 'unknown' && now - this.lastSweepAt < spacing) return false;
    this.lastSweepAt = now;
    return true;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * One pass over lapsed leases, then runnable tasks nobody claimed, then canceled tasks whose run
   * never heard the cancel. Each task is handled on its
   * own: one that cannot be recovered now (its enqueue refused while Redis is away, a statement
   * that fails for it alone) is counted and tried again next sweep, and does not stop the tasks
   * after it, nor the dispatch pass (a task failing first in every sweep would otherwise have
   * stalled recovery for everyone).
   */
  async sweep(): Promise<ReaperStats> {
    const { store, dispatcher, config, log } = this.deps;
    const stats: ReaperStats = { requeued: 0, failed: 0, dispatched: 0, cancelNotices: 0, errors: 0 };
    let firstError: unknown;
    const each = async <T>(items: readonly T[], handle: (item: T) => Promise<void>) => {
      for (const item of items) {
        try {
          await handle(item);
        } catch (err) {
          stats.errors++;
          firstError ??= err;
        }
      }
    };
    await each(await store.findLapsedLeases(100), (lapsed) => this.recover(lapsed, stats));
    const from = await this.loadPosition();
    const scan = await store.findDispatchable(config.dispatchGraceMs, DISPATCH_SCAN_READ, from);
    // Past the sweep's dispatches, or a full read, the next sweep goes on after them; a short
    // read ends the scan, and the next begins at the oldest again. So every dispatchable task is
    // looked at within a few sweeps.
    const limit = this.deps.dispatchesPerSweep ?? DISPATCHES_PER_SWEEP;
    const dispatchable = scan.tasks.slice(0, limit);
    let next = scan.tasks.length > limit ? dispatchable.at(-1)?.position : scan.next;
    // Outcomes in the order they came: with dispatches in flight at once, Redis going away shows
    // as the failures after the last success in time, whichever places in the scan they hold.
    const outcomes: { index: number; sent: boolean }[] = [];
    await eachAtOnce(dispatchable, DISPATCH_CONCURRENCY, async (task, index) => {
      try {
        const { tenantId, taskId, version, attempts, traceContext } = task;
        // With the creating request's trace context: the run joins the task's trace.
        const dispatch = { tenantId, taskId, version, attempts, ...traceContext };
        const added = dispatcher.redispatch
          ? await dispatcher.redispatch(dispatch)
          : await dispatcher.enqueue(dispatch).then(() => true);
        // Counted only when a job was added or revived: under a backlog most of what the scan
        // finds still has its job queued, and counting those would report a dispatch storm.
        if (added) {
          stats.dispatched++;
          this.deps.metrics?.reaperAction('dispatched');
        }
        outcomes.push({ index, sent: true });
      } catch (err) {
        stats.errors++;
        firstError ??= err;
        outcomes.push({ index, sent: false });
      }
    });
    // The first in the scan of the dispatches that failed with none after them succeeding (Redis
    // went away): the next sweep starts there rather than past them. One that failed while later
    // ones went out failed for itself and is passed (the next wrap of the scan tries it again).
    const lastSent = outcomes.findLastIndex((o) => o.sent);
    const trailingFailures = outcomes.slice(lastSent + 1).map((o) => o.index);
    const stoppedAt = trailingFailures.length > 0 ? Math.min(...trailingFailures) : undefined;
    if (stoppedAt !== undefined) {
      const held = stoppedAt > 0 ? dispatchable[stoppedAt - 1]?.position : from;
      this.heldSweeps = samePosition(held, this.heldAt) ? this.heldSweeps + 1 : 1;
      this.heldAt = held;
      if (this.heldSweeps <= MAX_HELD_SWEEPS) next = held;
    } else this.heldSweeps = 0;
    await this.savePosition(next);
    // The cancel scheduled a check of its own when it kept the lease (unheard-cancel.ts); this pass
    // stands in for one lost with Redis (a flush) or failed (Postgres away when it ran), so the
    // row, not a job, is what owes the notice. The job id names the lease (its expiry), so the
    // sweeps of one lease add one job, and a failed one is retried (redispatch), not added again.
    const unheard = await store.findUnheardCancels(unheardAfterMs(config), 100);
    await each(unheard, async (task) => {
      const { taskId: id, ...rest } = task;
      const check = {
        ...unheardCancelCheck({ id, ...rest }, config),
        nonce: `r${task.leaseExpiresAt.getTime()}`,
      };
      await (dispatcher.redispatch ? dispatcher.redispatch(check) : dispatcher.enqueue(check));
      stats.cancelNotices++;
      this.deps.metrics?.reaperAction('cancel-notice');
    });
    if (stats.errors > 0)
      log.warn(
        { err: firstError, errors: stats.errors },
        'reaper: some tasks could not be recovered; next sweep retries',
      );
    return stats;
  }

  /**
   * The shared position, or this reaper's own when Redis fails or does not answer in time: the
   * queue's connection queues commands while it reconnects, and a sweep waiting out an outage
   * there would stop lease recovery, which needs only Postgres.
   */
  private async loadPosition(): Promise<DispatchPosition | undefined> {
    const shared = this.deps.scanPosition;
    if (!shared) return this.dispatchPosition;
    const own = this.dispatchPosition;
    return resultWithin(shared.load(), SCAN_POSITION_WAIT_MS, own);
  }

  private async savePosition(position: DispatchPosition | undefined): Promise<void> {
    this.dispatchPosition = position;
    const shared = this.deps.scanPosition;
    if (shared) await resultWithin(shared.save(position), SCAN_POSITION_WAIT_MS, undefined);
  }

  private async recover(lapsed: LapsedTask, stats: ReaperStats): Promise<void> {
    const { store, writer, dispatcher, config, log } = this.deps;
    const outcome = await store.recoverLapsedLease({
      tenantId: lapsed.tenantId,
      taskId: lapsed.taskId,
      leaseOwner: lapsed.leaseOwner,
      maxAttempts: config.maxAttempts,
      backoffMs: (attempts) => retryDelayMs(config, attempts),
      failEvent: (task) => {
        const statusMessage = {
          messageId: randomUUID(),
          role: 'ROLE_AGENT' as const,
          contextId: task.contextId,
          taskId: task.id,
          parts: [{ text: LEASE_EXHAUSTED_MESSAGE }],
        };
        return { statusMessage, event: statusEvent(task, TaskState.FAILED, statusMessage) };
      },
    });
    if (outcome.outcome === 'requeued') {
      stats.requeued++;
      this.deps.metrics?.leaseExpired();
      this.deps.metrics?.reaperAction('requeued');
      log.warn(
        { tenantId: lapsed.tenantId, taskId: lapsed.taskId, leaseOwner: lapsed.leaseOwner },
        'lease lapsed; task re-dispatched',
      );
      // If this enqueue fails, the task is runnable and unleased: the dispatch pass finds it.
      await dispatcher.enqueue({
        tenantId: lapsed.tenantId,
        taskId: lapsed.taskId,
        version: outcome.task.version,
        attempts: outcome.task.attempts,
        runAfter: outcome.runAfter,
        ...lapsed.traceContext,
      });
    } else if (outcome.outcome === 'failed') {
      stats.failed++;
      this.deps.metrics?.leaseExpired();
      this.deps.metrics?.reaperAction('failed');
      writer.finished(outcome.task, outcome.task.state);
      log.warn(
        { tenantId: lapsed.tenantId, taskId: lapsed.taskId },
        'lease lapsed on the last attempt; task failed',
      );
      await writer.announce(outcome.task);
      // Not waited for: the hook may call out (an upstream's card, its cancel), and the sweep's
      // other tasks, its dispatch pass and a shutdown must not wait on that.
      void this.deps.onFailed?.(outcome.task).catch(() => undefined);
    }
  }
}

function samePosition(a: DispatchPosition | undefined, b: DispatchPosition | undefined): boolean {
  return a?.runAfter === b?.runAfter && a?.tenantId === b?.tenantId && a?.taskId === b?.taskId;
}

type TurnAnswer = 'mine' | 'not mine' | 'unknown';

/** With Redis unable to give the turn, a reaper sweeps every this many intervals (sweepsOn). */
const UNKNOWN_TURN_SWEEP_EVERY = 5;

/** The turn, or 'unknown' when Redis fails or is slow to answer (an outage must not stop recovery). */
function askTurn(takeTurn: () => Promise<boolean>): Promise<TurnAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<TurnAnswer>((resolve) => {
    timer = setTimeout(() => resolve('unknown'), 1000);
  });
  const asked = takeTurn().then(
    (mine): TurnAnswer => (mine ? 'mine' : 'not mine'),
    (): TurnAnswer => 'unknown',
  );
  return Promise.race([asked, late]).finally(() => clearTimeout(timer));
}

/** `handle` over `items` and their indexes, `concurrency` at a time, taken in order. */
async function eachAtOnce<T>(
  items: readonly T[],
  concurrency: number,
  handle: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      await handle(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
