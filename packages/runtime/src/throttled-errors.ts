import type { Logger } from '@switchyard/telemetry';

/** While errors persist, at most one line per this long. */
export const ERROR_LOG_INTERVAL_MS = 30_000;

export interface ThrottledErrors {
  /** Reports one error: logged if it is the first, or the first after a quiet `everyMs`. */
  (err: unknown): void;
  /** The source works again: the next error is logged at once, as a first one. */
  recovered(): void;
}

/**
 * Logs a stream of errors that one fault produces over and over (a Redis outage: an error per
 * reconnect attempt, from the connection and from every BullMQ queue on it) as its first error at
 * warn, then at most one line per `everyMs` while it persists, each with how many errors it
 * stands for (`repeated`). An outage of an hour is then some 120 lines, not tens of thousands.
 */
export function throttledErrors(
  log: Logger,
  message: string,
  { everyMs = ERROR_LOG_INTERVAL_MS, now = Date.now }: { everyMs?: number; now?: () => number } = {},
): ThrottledErrors {
  let loggedAt: number | undefined;
  let unlogged = 0;
  const report = (err: unknown) => {
    const at = now();
    if (loggedAt !== undefined && at - loggedAt < everyMs) {
      unlogged += 1;
      return;
    }
    if (loggedAt === undefined) log.warn({ err }, message);
    else log.warn({ err, repeated: unlogged + 1 }, `${message} (still failing)`);
    loggedAt = at;
    unlogged = 0;
  };
  return Object.assign(report, {
    recovered() {
      loggedAt = undefined;
      unlogged = 0;
    },
  });
}
