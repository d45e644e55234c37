import type { FetchLike } from '../http/http-client.ts';
import type { RetryOptions } from '../retry/retry-policy.ts';
import type { RetryListener } from '../retry/with-retry.ts';
import type { SupportedBinding } from '../version.ts';

export interface A2AClientOptions {
  /** Sent in the header the card's apiKeySecurityScheme names (location `header`), else `X-API-Key`. */
  apiKey?: string | undefined;
  /** Extra headers for every request (e.g. `Authorization`). */
  headers?: Record<string, string> | undefined;
  /** Default: the global fetch. */
  fetch?: FetchLike | undefined;
  /** Force one binding instead of the card's preference order. */
  transport?: SupportedBinding | undefined;
  /** Extension URIs to activate, sent as `A2A-Extensions` (digest §6). */
  extensions?: string[] | undefined;
  /** Retries of transient failures. Default: 5 attempts, full jitter from 200 ms up to 5 s. */
  retry?: RetryOptions | undefined;
  /** Called before each retry (logging). */
  onRetry?: RetryListener | undefined;
  /**
   * A stream that delivers nothing at all (not even a keep-alive comment) for this long is treated
   * as dead, in ms; `run()` then resumes it. Only time spent waiting on the server counts, not
   * time the consumer spends handling an event. Default 60000; 0 disables.
   */
  streamIdleTimeoutMs?: number | undefined;
}

export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;
