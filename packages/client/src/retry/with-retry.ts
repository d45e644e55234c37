import { fullJitterDelay, sleep } from './backoff.ts';
import { isTransient, retryAfterMsOf, type ResolvedRetryOptions } from './retry-policy.ts';

/** Observes each retry (the CLI prints them; tests count them). */
export type RetryListener = (info: { attempt: number; delayMs: number; error: unknown }) => void;

/**
 * Runs `operation` until it succeeds, fails with a non-transient error, or the attempts run out.
 * Waits between attempts with full-jitter backoff, or at least the server's `Retry-After`. The
 * operation must be safe to repeat: sends resend the same messageId (see maySendAgain for which
 * failures a send is not repeated after), webhook creates the same config id.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: ResolvedRetryOptions,
  signal?: AbortSignal,
  onRetry?: RetryListener,
  /** Narrows which transient failures this operation may repeat (a blocking send after a timeout, see maySendAgain; a create without an id). */
  retryIf: (error: unknown) => boolean = () => true,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!isTransient(error) || !retryIf(error) || attempt + 1 >= options.maxAttempts) throw error;
      const retryAfterMs = retryAfterMsOf(error);
      if (retryAfterMs !== undefined && retryAfterMs > options.maxRetryAfterMs) throw error;
      const delayMs = Math.max(retryAfterMs ?? 0, fullJitterDelay(attempt, options, options.random));
      onRetry?.({ attempt: attempt + 1, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
}
