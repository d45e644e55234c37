import type { JsonObject, SendMessageConfiguration } from '@switchyard/protocol';
import type { BackoffOptions } from '../retry/backoff.ts';
import type { StreamEvent } from '../transport/transport.ts';

/** What the follower is doing about the connection, for progress displays and logs. */
export type RunNotice =
  /** A stream broke or ended early; it is reopened after `delayMs`, resuming after `lastEventId`. */
  | {
      type: 'reconnecting';
      attempt: number;
      delayMs: number;
      lastEventId: string | undefined;
      error: unknown;
    }
  /** Streaming is off, unsupported, or kept failing: GetTask polling from here on. */
  | { type: 'polling'; reason: string };

/** How a task is followed until it settles (terminal or interrupted). All fields optional. */
export interface FollowOptions {
  /** Every event seen: the stream's (with SSE id), and each changed Task a poll read. */
  onEvent?: (event: StreamEvent) => void;
  onNotice?: (notice: RunNotice) => void;
  signal?: AbortSignal | undefined;
  /** Give up after this long, in ms, with a RunTimeoutError carrying the task as last seen. Default: no limit. */
  timeoutMs?: number | undefined;
  /** Follow progress over SSE when the card declares streaming. Default true; false polls only. */
  stream?: boolean | undefined;
  /** Consecutive stream connections that fail without a new event before falling back to polling. Default 3. */
  maxStreamFailures?: number | undefined;
  /** Backoff between stream reconnections, in ms. Default base 250, max 5000. */
  reconnectBackoff?: BackoffOptions | undefined;
  /** Backoff between GetTask polls, in ms; reset when the task changes. Default base 500, max 10000. */
  pollBackoff?: BackoffOptions | undefined;
  /**
   * Consecutive GetTask polls that fail (each after its own retries) before the last error is
   * thrown: a server gone for good ends the follow instead of polling forever. Default 5.
   */
  maxPollFailures?: number | undefined;
}

/** Options of `run()`: the follow options plus what goes into the SendMessage request. */
export interface RunOptions extends FollowOptions {
  /** Sent as is, except that `returnImmediately` is always true (the safe pattern). */
  configuration?: Omit<SendMessageConfiguration, 'returnImmediately'> | undefined;
  metadata?: JsonObject | undefined;
}

export const DEFAULT_RECONNECT_BACKOFF: BackoffOptions = Object.freeze({
  baseDelayMs: 250,
  maxDelayMs: 5000,
});
export const DEFAULT_POLL_BACKOFF: BackoffOptions = Object.freeze({ baseDelayMs: 500, maxDelayMs: 10_000 });
export const DEFAULT_MAX_STREAM_FAILURES = 3;
export const DEFAULT_MAX_POLL_FAILURES = 5;
