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
 * Whether an error is worth retrying: no answer at all, an Unavailable error, a 429 /
 * ResourceExhausted that says when to come back (`Retry-After`), or a 502/503/504 with no error of
 * the server's own in its body (a proxy or load balancer between us). Everything else is the
 * server's considered answer and retrying would only repeat it: a 502 carrying
 * InvalidAgentResponse (the status some servers give it) is not retried, or a send would make its
 * agent answer again.
 */
export function isTransient(error: unknown): boolean {
  if (isNetworkError(error)) return true;
  const status = numberField(error, 'httpStatus');
  const serverSaid = isA2AResponseError(error) && error.fromErrorBody;
  if (status !== undefined && TRANSIENT_STATUSES.has(status) && !serverSaid) return true;
  const saysWhen = numberField(error, 'retryAfterSeconds') !== undefined;
  if (status === 429) return saysWhen;
  if (!isA2AError(error)) return false;
  return error.kind === 'Unavailable' || (error.kind === 'ResourceExhausted' && saysWhen);
}

/** The server's `Retry-After`, in ms, when the error carries one. */
export function retryAfterMsOf(error: unknown): number | undefined {
  const seconds = numberField(error, 'retryAfterSeconds');
  return seconds === undefined ? undefined : seconds * 1000;
}

/** A numeric field of an error of any class (A2AResponseError, AdminApiError). */
function numberField(error: unknown, field: 'httpStatus' | 'retryAfterSeconds'): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as Record<string, unknown>)[field];
  return typeof value === 'number' ? value : undefined;
}
