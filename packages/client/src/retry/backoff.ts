/** Exponential backoff bounds, in ms. */
export interface BackoffOptions {
  /** Ceiling of the first delay, in ms. */
  baseDelayMs: number;
  /** Largest ceiling any delay may reach, in ms. */
  maxDelayMs: number;
}

/**
 * "Full jitter" (Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog 2015): a delay
 * drawn uniformly from [0, min(max, base·2^attempt)]. Spreads the retries of many clients that
 * failed together (a gateway restart) instead of having them return in waves.
 */
export function fullJitterDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
