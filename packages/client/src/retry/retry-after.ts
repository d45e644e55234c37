import { retryAfterMs } from '@switchyard/protocol';

/**
 * `Retry-After` as whole seconds (rounded up): delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
 * Undefined when absent or unreadable; a date in the past reads as 0.
 */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | undefined {
  const ms = retryAfterMs(header, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}
