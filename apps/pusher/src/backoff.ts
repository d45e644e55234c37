/** Retry schedule of a failed delivery. */
export interface RetryPolicy {
  /** Attempts per delivery, the first send included; the last failure dead-letters. */
  maxAttempts: number;
  /** Backoff ceiling after the first failure, in ms; doubles per attempt. */
  baseMs: number;
  /** Largest ceiling, in ms. */
  maxMs: number;
}

/**
 * Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"):
 * uniform in [0, min(max, base·2^(attempt-1))). Full rather than equal jitter because many pushers
 * retrying one dead receiver must spread out, and a receiver coming back is served by whichever
 * retry lands first. `attempt` counts the attempt that just failed, from 1.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(ceiling * random());
}
