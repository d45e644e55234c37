const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What `runRetention` keeps. Every TTL is in milliseconds. */
export interface RetentionOptions {
  /** A terminal task (with its history, artifacts, events and push rows) is kept this long after its last update. Default 30 days. */
  terminalTaskTtlMs?: number;
  /** A terminal task's event log is kept this long after the task ended (an event a pending or dead push delivery needs, as long as that row). Default 24 hours. */
  eventTtlMs?: number;
  /** messageId deduplication window (the retry horizon, ARCHITECTURE.md §3 rule 5). Default 24 hours. */
  idempotencyTtlMs?: number;
  /** Delivered push rows are kept this long after delivery (the console timeline). Default 7 days. */
  deliveredPushTtlMs?: number;
  /** Agents' per-context memory is kept this long after its last write. Default 30 days. */
  contextMemoryTtlMs?: number;
  /** Rows (tasks, for the task sweep) per statement; bounds lock time and WAL per batch. Default 1000. */
  batchSize?: number;
  /**
   * Most events plus artifact chunks one task-sweep transaction deletes (a batch takes fewer tasks
   * when theirs pass it, and never less than one task). A thousand tasks that each streamed
   * thousands of chunks would otherwise be millions of rows in one transaction, past the
   * statement timeout every run. Default 50,000.
   */
  taskRowsPerBatch?: number;
  /** The clock the TTLs count back from. Default: the database's now(), so app clock skew cannot matter. */
  now?: Date;
}

export type ResolvedRetentionOptions = Required<Omit<RetentionOptions, 'now'>>;

export const RETENTION_DEFAULTS: ResolvedRetentionOptions = Object.freeze({
  terminalTaskTtlMs: 30 * DAY_MS,
  eventTtlMs: DAY_MS,
  idempotencyTtlMs: DAY_MS,
  deliveredPushTtlMs: 7 * DAY_MS,
  contextMemoryTtlMs: 30 * DAY_MS,
  batchSize: 1000,
  taskRowsPerBatch: 50_000,
});

export function resolveRetentionOptions(options: RetentionOptions): ResolvedRetentionOptions {
  const resolved = { ...RETENTION_DEFAULTS };
  for (const key of Object.keys(RETENTION_DEFAULTS) as (keyof ResolvedRetentionOptions)[]) {
    const value = options[key];
    if (value === undefined) continue;
    const count = key === 'batchSize' || key === 'taskRowsPerBatch';
    if (!Number.isFinite(value) || value < (count ? 1 : 0)) {
      throw new RangeError(
        `retention option ${key} must be a ${count ? 'positive' : 'non-negative'} number, got ${value}`,
      );
    }
    resolved[key] = count ? Math.floor(value) : value;
  }
  // A messageId that outlived its task would dedupe a retry onto a task that no longer exists.
  if (resolved.idempotencyTtlMs > resolved.terminalTaskTtlMs) {
    throw new RangeError('retention option idempotencyTtlMs must not exceed terminalTaskTtlMs');
  }
  return resolved;
}
