import { isA2AError } from '@switchyard/protocol';
import { isNetworkError } from '../errors/network-error.ts';
import { isA2AResponseError } from '../errors/response-error.ts';
import type { BackoffOptions } from './backoff.ts';

/** How requests are retried. Every field is optional; see the defaults. */
export interface RetryOptions {
  /** Attempts in total, the first included. Default 5; 1 disables retries. */
  maxAttempts?: number;
  /** Ceiling of the first backoff delay, in ms. Default 200. */
  baseDelayMs?: number;
  /** Largest backoff ceiling, in ms. Default 5000. */
  maxDelayMs?: number;
  /** Longest `Retry-After` honoured, in ms; a server asking for more fails the call. Default 30000. */
  maxRetryAfterMs?: number;
  /** Source of randomness for the jitter, in [0, 1). Default Math.random (tests pin it). */
  random?: () => number;
}

export type ResolvedRetryOptions = Required<RetryOptions> & BackoffOptions;

export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
  return {
    maxAttempts: Math.max(1, options.maxAttempts ?? 5),
    baseDelayMs: options.baseDelayMs ?? 200,
    maxDelayMs: options.maxDelayMs ?? 5000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
    random: options.random ?? Math.random,
  };
}

/** Statuses that say "not now" rather than "no": proxies and gateways restarting or overloaded. */
const TRANSIENT_STATUSES = new Set([502, 503, 504]);

/**
 * Whether an error is worth retrying: no answer at all, a 502/503/504, an Unavailable error, or
 * a 429 / ResourceExhausted that says when to come back (`Retry-After`). Everything else is the
 * server's considered answer and retrying would only repeat it.
 */
export function isTransient(error: unknown): boolean {
  if (isNetworkError(error)) return true;
  if (isA2AResponseError(error)) {
    if (TRANSIENT_STATUSES.has(error.httpStatus)) return true;
    if (error.httpStatus === 429 || error.kind === 'ResourceExhausted') return error.retryAfterSeconds !== undefined;
  }
  return isA2AError(error) && error.kind === 'Unavailable';
}

/** The server's `Retry-After`, in ms, when the error carries one. */
export function retryAfterMsOf(error: unknown): number | undefined {
  return isA2AError(error) && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : undefined;
}
