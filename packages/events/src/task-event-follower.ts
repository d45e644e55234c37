import type { StreamResponse } from '@switchyard/protocol';
import type { SubscriptionHub } from './subscription-hub.ts';
import type { TaskHint } from './task-hint.ts';
import type { VersionSweep } from './version-sweep.ts';

/** The part of the hub a feed uses. */
export type HintWatcher = Pick<SubscriptionHub, 'watch'>;

export interface FeedEvent {
  seq: number;
  payload: StreamResponse;
}

/** The narrow port into the event log (the store's readEvents). */
export type ReadEvents = (
  tenantId: string,
  taskId: string,
  afterSeq: number,
  limit: number,
) => Promise<FeedEvent[]>;

export interface FollowOptions {
  hub: HintWatcher;
  readEvents: ReadEvents;
  tenantId: string;
  taskId: string;
  /** Deliver events with seq > afterSeq. */
  afterSeq: number;
  /** Fallback read of the log when no hint arrives, so a lost hint only delays. Default 2000 ms. */
  pollIntervalMs?: number;
  /**
   * The process's shared version sweep: when given, it replaces the per-feed timer, and the log is
   * read only when the sweep saw the task past what this feed delivered.
   */
  sweep?: Pick<VersionSweep, 'track' | 'soon'>;
  /**
   * The seq of the task's last event, when the task is terminal: its log can no longer grow, so a
   * read that ends before this seq means events were pruned, reported to `sink.gap` rather than
   * waited for.
   */
  finalSeq?: number;
  /**
   * Pauses before reading the log again after a read failed, one per retry; the failure after the
   * last ends the feed (`sink.failed`). A Postgres restart or a burst of reads waiting for a pool
   * connection then delays a stream instead of ending it. Default 250, 1000, 4000 and 10000 ms:
   * about 15 s, a failover's length (a plain restart takes a few seconds).
   */
  readRetryDelaysMs?: readonly number[];
}

/** Where a follower delivers. */
export interface FeedSink {
  /**
   * The next event, in order. Returning false pauses the follower: nothing more is delivered (and
   * nothing more is read) until `resume()`.
   */
  event(event: FeedEvent): boolean;
  /** A read of the log failed; the follower has closed itself. */
  failed(err: unknown): void;
  /**
   * The log does not continue after `afterSeq` (the last event delivered) and never will: those
   * events were pruned. Only retention deletes events, and only from a terminal task's log; a live
   * log has no holes, since each version bump commits its event and the next bump waits for that
   * commit (the compare-and-set on the row). Reported for a hole inside a read, or for a read that
   * ends before `finalSeq`; the follower has closed itself. A sink without it keeps waiting.
   */
  gap?(afterSeq: number): void;
}

/** Events read from the log per round; a full page means there may be more. */
const PAGE = 500;

const READ_RETRY_DELAYS_MS = [250, 1000, 4000, 10_000];

/**
 * Every event of one task after `afterSeq`, in order, exactly once, pushed to a sink. Hints wake
 * it; an in-step hint with an inline payload is delivered directly, anything else (a gap, a
 * resync, the poll or the sweep seeing the task ahead) reads the log.
 *
 * It is an object with fields, not an async generator, because an idle SSE stream holds one for
 * hours: a suspended generator chain (its frame, register file, pending promises and their
 * reactions) cost about 2 KB of every open stream. Delivery is synchronous from the hint (no
 * promise per event); a sink that cannot take more returns false and calls `resume()` later, so a
 * slow consumer never makes it read or buffer without bound.
 */
export class TaskEventFollower {
  readonly #options: FollowOptions;
  readonly #sink: FeedSink;
  #last: number;
  /** Events that continue `#last`, by seq: from hints, and from the last read of the log. */
  #ready: Map<number, FeedEvent> | undefined;
  #dirty = true;
  #reading = false;
  #paused = false;
  #closed = false;
  /** Set when a read found the log missing the event after this seq (see FeedSink.gap). */
  #holeAfter: number | undefined;
  /** Reads failed in a row (readRetryDelaysMs), and when the next read may go (epoch ms). */
  #readFailures = 0;
  #retryAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #unwatch: (() => void) | undefined;
  #untrack: (() => void) | undefined;

  constructor(options: FollowOptions, sink: FeedSink) {
    this.#options = options;
    this.#sink = sink;
    this.#last = options.afterSeq;
  }

  /** Subscribes to the task's hints and makes the first read of the log. */
  start(): this {
    const { hub, sweep, tenantId, taskId } = this.#options;
    this.#unwatch = hub.watch(tenantId, taskId, (hint) => this.#onHint(hint));
    this.#untrack = sweep?.track(tenantId, taskId, (version) => {
      if (version <= this.#last) return;
      this.#dirty = true;
      this.#run();
    });
    this.#run();
    return this;
  }

  /** Delivers again after the sink returned false. */
  resume(): void {
    this.#paused = false;
    this.#run();
  }

  /** Stops delivering and lets go of the hint subscription, the sweep and the timer. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#ready = undefined;
    this.#untrack?.();
    this.#unwatch?.();
  }

  #onHint(hint: TaskHint | 'resync'): void {
    if (this.#closed || (hint !== 'resync' && hint.seq <= this.#last)) return;
    // A paused sink's events are read from the log when it resumes: holding every hint's payload
    // meanwhile would buffer without bound for a client that reads slowly.
    if (this.#paused) {
      this.#dirty = true;
      return;
    }
    // Use a payload only when it continues what we hold; anything else is read from the log. A
    // hint whose events are all inlined needs no read: reading anyway cost one log read per event
    // per open stream.
    let inlined = false;
    if (hint !== 'resync') {
      if (hint.before && hint.before.seq > this.#last && this.#continues(hint.before.seq)) {
        this.#keep({ seq: hint.before.seq, payload: hint.before.payload });
      }
      if (hint.payload && this.#continues(hint.seq)) {
        this.#keep({ seq: hint.seq, payload: hint.payload });
        inlined = true;
      }
    }
    // A resync (Redis reconnected: any hint may be lost) asks the shared sweep, which reads one
    // version per task in batches, rather than this feed's log: after a Redis restart thousands
    // of streams reading their logs at once would queue behind a pool of ten and stall requests.
    if (hint === 'resync' && this.#options.sweep) return this.#options.sweep.soon();
    if (!inlined) this.#dirty = true;
    this.#run();
  }

  #continues(seq: number): boolean {
    return seq === this.#last + 1 || !!this.#ready?.has(seq - 1);
  }

  #keep(event: FeedEvent): void {
    (this.#ready ??= new Map()).set(event.seq, event);
  }

  /** Delivers what is ready, then reads the log if something may be missing, else waits. */
  #run(): void {
    if (this.#closed || this.#paused || this.#reading) return;
    const ready = this.#ready;
    if (ready) {
      for (let next = ready.get(this.#last + 1); next; next = ready.get(this.#last + 1)) {
        ready.delete(next.seq);
        this.#last = next.seq;
        if (!this.#deliver(next)) this.#paused = true;
        if (this.#closed || this.#paused) return;
      }
      if (ready.size === 0) this.#ready = undefined;
    }
    if (this.#holeAfter !== undefined) return this.#gap();
    clearTimeout(this.#timer);
    // After a failed read, hints and sweeps wait out the pause: they would spend the retries at once.
    const pause = this.#retryAt - Date.now();
    if (this.#dirty && pause > 0) this.#timer = setTimeout(() => this.#run(), pause);
    else if (this.#dirty) this.#read();
    else if (!this.#options.sweep) {
      this.#timer = setTimeout(() => {
        this.#dirty = true;
        this.#run();
      }, this.#options.pollIntervalMs ?? 2000);
    }
  }

  /**
   * Hands one event to the sink. Delivery runs inside the hub's hint dispatch, which serves every
   * watcher of the task: a sink that throws ends its own stream, not the others'.
   */
  #deliver(event: FeedEvent): boolean {
    try {
      return this.#sink.event(event);
    } catch (err) {
      this.#fail(err);
      return false;
    }
  }

  #fail(err: unknown): void {
    if (this.#closed) return;
    this.close();
    this.#sink.failed(err);
  }

  /** What continued the client's sequence has been delivered; the rest is gone from the log. */
  #gap(): void {
    const after = this.#last;
    this.close();
    try {
      this.#sink.gap?.(after);
    } catch (err) {
      this.#sink.failed(err);
    }
  }

  #read(): void {
    const { readEvents, tenantId, taskId } = this.#options;
    this.#dirty = false;
    this.#ready = undefined;
    this.#reading = true;
    readEvents(tenantId, taskId, this.#last, PAGE).then(
      (events) => {
        this.#reading = false;
        this.#readFailures = 0;
        this.#retryAt = 0;
        if (this.#closed) return;
        // Only the events that continue the sequence: after a gap, re-read on the next round.
        let expected = this.#last + 1;
        for (const e of events) {
          if (e.seq !== expected) break;
          this.#keep(e);
          expected += 1;
        }
        const full = events.length === PAGE;
        if (full) this.#dirty = true;
        const { finalSeq } = this.#options;
        const hole =
          expected - this.#last - 1 < events.length ||
          (!full && finalSeq !== undefined && expected <= finalSeq);
        if (hole && this.#sink.gap) this.#holeAfter = expected - 1;
        this.#run();
      },
      (err: unknown) => {
        this.#reading = false;
        if (this.#closed) return;
        const delay = (this.#options.readRetryDelaysMs ?? READ_RETRY_DELAYS_MS)[this.#readFailures++];
        if (delay === undefined) return this.#fail(err);
        this.#dirty = true;
        this.#retryAt = Date.now() + delay;
        this.#run();
      },
    );
  }
}
