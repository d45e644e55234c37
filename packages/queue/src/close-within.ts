import type { Logger } from '@switchyard/telemetry';

/** How long one close in a drain may wait for Redis before the drain goes on without it. */
export const REDIS_CLOSE_TIMEOUT_MS = 2_000;

/**
 * Runs `close` and waits for it at most `timeoutMs`. A close that needs Redis (a BullMQ close, an
 * UNSUBSCRIBE queued for the reconnect) waits for the whole outage; past the timeout it is logged
 * and left behind, and the drain goes on to what it can still do (the process exits after).
 * Never rejects: a failed close is logged too. Resolves to whether it finished in time.
 */
export async function closeWithin(
  what: string,
  close: () => Promise<unknown>,
  log: Logger,
  timeoutMs = REDIS_CLOSE_TIMEOUT_MS,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  // Handled here, so a close that fails after the timeout is no unhandled rejection.
  const closing = Promise.resolve()
    .then(close)
    .then(
      () => 'closed' as const,
      (err: unknown) => {
        log.warn({ err, what }, 'close failed; going on');
        return 'failed' as const;
      },
    );
  const outcome = await Promise.race([closing, late]);
  clearTimeout(timer);
  if (outcome === 'late')
    log.warn({ what, timeoutMs }, 'close did not finish in time (Redis unreachable?); going on without it');
  return outcome === 'closed';
}
