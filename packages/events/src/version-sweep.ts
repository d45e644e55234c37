/** A task's identity and its current version (the seq of its newest event). */
export interface TaskVersion {
  tenantId: string;
  taskId: string;
  version: number;
}

/** Reads the current versions of many tasks at once (one statement per batch). */
export type ReadVersions = (
  keys: ReadonlyArray<{ tenantId: string; taskId: string }>,
) => Promise<TaskVersion[]>;

export interface VersionSweepOptions {
  readVersions: ReadVersions;
  /** How often every tracked task's version is read. */
  intervalMs: number;
  /** Tasks per read. */
  batchSize?: number;
  onError?: (err: unknown) => void;
}

type VersionListener = (version: number) => void;

/**
 * The safety net under pub/sub for a process's open streams, shared by all of them: a hint can be
 * lost (a publisher killed between its commit and its publish, a dropped subscriber connection),
 * so a stream must not rely on hints alone. Instead of each stream re-reading its task's log on a
 * timer (one read per stream per interval: thousands of reads per second for idle streams), one
 * sweep reads the versions of every tracked task in batches and tells each stream the version it
 * saw; a stream that is behind reads its log. The timer runs only while something is tracked.
 */
export class VersionSweep {
  readonly #options: Required<Omit<VersionSweepOptions, 'onError'>> & Pick<VersionSweepOptions, 'onError'>;
  readonly #tracked = new Map<
    string,
    { tenantId: string; taskId: string; listeners: Set<VersionListener> }
  >();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** A sweep was asked for (soon) while one ran: it runs again once that one ends. */
  #again = false;
  /** A sweep asked for by soon() failed: the next one comes after this wait, not the interval. */
  #urgent = false;
  #retryMs = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #soon: NodeJS.Immediate | undefined;

  constructor(options: VersionSweepOptions) {
    this.#options = { batchSize: 1000, ...options };
  }

  /** Calls `listener` with the task's version after every sweep; returns the untrack function. */
  track(tenantId: string, taskId: string, listener: VersionListener): () => void {
    const key = `${tenantId}\u0000${taskId}`;
    let entry = this.#tracked.get(key);
    if (!entry) {
      entry = { tenantId, taskId, listeners: new Set() };
      this.#tracked.set(key, entry);
    }
    entry.listeners.add(listener);
    this.#schedule();
    return () => {
      const current = this.#tracked.get(key);
      if (!current) return;
      current.listeners.delete(listener);
      if (current.listeners.size === 0) this.#tracked.delete(key);
      if (this.#tracked.size === 0) this.#cancel();
    };
  }

  /** Tasks currently tracked (metrics, tests). */
  get size(): number {
    return this.#tracked.size;
  }

  /**
   * A sweep at the next turn of the event loop, however many ask in this one: after a Redis
   * reconnect every open stream may have missed hints, and one sweep (a statement per 1,000
   * tasks) finds which did, where each stream reading its own log would queue thousands of reads
   * on the pool at once. One asked for while a sweep runs follows it, since that one may have
   * read a version before the missed event.
   */
  soon(): void {
    this.#urgent = true;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#soon ??= setImmediate(() => {
      this.#soon = undefined;
      void this.sweep();
    });
  }

  /** One sweep now (the timer calls this; tests may too). */
  async sweep(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    this.#again = false;
    try {
      const entries = [...this.#tracked.values()];
      for (let i = 0; i < entries.length; i += this.#options.batchSize) {
        const batch = entries.slice(i, i + this.#options.batchSize);
        const versions = await this.#options.readVersions(batch);
        for (const { tenantId, taskId, version } of versions) {
          const entry = this.#tracked.get(`${tenantId}\u0000${taskId}`);
          for (const listener of entry?.listeners ?? []) listener(version);
        }
      }
      this.#urgent = false;
      this.#retryMs = 0;
    } catch (err) {
      this.#options.onError?.(err);
      // A resync's sweep (Redis reconnected) that failed (Postgres away too) is tried again soon,
      // 250 ms doubling up to the interval, instead of leaving streams behind for a whole interval.
      if (this.#urgent && this.#tracked.size > 0 && !this.#retryTimer) {
        this.#retryMs = Math.min(this.#options.intervalMs, Math.max(250, this.#retryMs * 2));
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = undefined;
          this.soon();
        }, this.#retryMs);
        this.#retryTimer.unref();
      }
    } finally {
      this.#running = false;
    }
    if (this.#again) this.soon();
  }

  close(): void {
    this.#tracked.clear();
    this.#cancel();
    if (this.#soon) clearImmediate(this.#soon);
    this.#soon = undefined;
    this.#again = false;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#urgent = false;
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.sweep(), this.#options.intervalMs);
    this.#timer.unref();
  }

  #cancel(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
