import { NetworkError } from '../errors/network-error.ts';
import { errorFromReply } from '../errors/decode-error.ts';
import { mergeHeaders } from './merge-headers.ts';
import { resolveRetryOptions, type ResolvedRetryOptions, type RetryOptions } from '../retry/retry-policy.ts';
import { withRetry, type RetryListener } from '../retry/with-retry.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Builds the error thrown for a non-2xx reply; the default reads A2A error bodies. */
export type ErrorDecoder = (status: number, statusText: string, bodyText: string, headers: Headers) => Error;

export interface HttpClientOptions {
  /** Sent with every request (A2A-Version, credentials, caller's own headers); a later name wins, whatever its case. */
  headers?: Record<string, string>;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  retry?: RetryOptions;
  onRetry?: RetryListener;
  decodeError?: ErrorDecoder;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** Serialized as JSON when present. */
  body?: unknown;
  contentType?: string;
  accept: string;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/**
 * One fetch with the client's headers, turned into typed failures: no answer becomes a
 * NetworkError, a non-2xx reply the decoded error (its body read), and the caller's abort stays
 * its own reason. `retrying` repeats an operation on transient failures.
 */
export class HttpClient {
  readonly retry: ResolvedRetryOptions;
  readonly #fetch: FetchLike;
  readonly #headers: Headers;
  readonly #onRetry: RetryListener | undefined;
  readonly #decodeError: ErrorDecoder;

  constructor(options: HttpClientOptions = {}) {
    this.retry = resolveRetryOptions(options.retry);
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#headers = mergeHeaders(options.headers);
    this.#onRetry = options.onRetry;
    this.#decodeError = options.decodeError ?? errorFromReply;
  }

  /** A 2xx response, or a thrown NetworkError / decoded error. */
  async fetch(request: HttpRequest): Promise<Response> {
    const shown = checkedUrl(request.url);
    const headers = mergeHeaders(this.#headers, request.headers, { Accept: request.accept });
    if (request.body !== undefined) headers.set('Content-Type', request.contentType ?? 'application/json');
    let response: Response;
    try {
      response = await this.#fetch(request.url, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (err) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw new NetworkError(`${request.method} ${shown} failed: ${describe(err)}`, { cause: err });
    }
    if (response.ok) return response;
    let text = '';
    try {
      text = await response.text();
    } catch (err) {
      if (request.signal?.aborted) throw request.signal.reason;
    }
    throw this.#decodeError(response.status, response.statusText, text, response.headers);
  }

  /** Runs `operation` with this client's retry policy (full-jitter backoff, Retry-After). */
  retrying<T>(
    operation: (attempt: number) => Promise<T>,
    signal?: AbortSignal,
    options?: { retry?: boolean; retryIf?: ((error: unknown) => boolean) | undefined },
  ): Promise<T> {
    const policy = options?.retry === false ? { ...this.retry, maxAttempts: 1 } : this.retry;
    return withRetry(operation, policy, signal, this.#onRetry, options?.retryIf);
  }
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return cause
    ? `${cause.message}${typeof code === 'string' && !cause.message.includes(code) ? ` (${code})` : ''}`
    : err.message;
}

/**
 * The URL as it may be shown, once it is known to be one fetch can use: a string that is no http(s)
 * URL (`localhost:8080` parses, as scheme `localhost:`) or one carrying credentials is a caller's
 * mistake, refused at once (TypeError, never retried) rather than sent five times as a network
 * failure. Credentials in a URL would travel and be logged in the clear: the key goes in a header.
 */
function checkedUrl(raw: string): string {
  // Whatever precedes an '@' may be a secret, with or without a scheme before it.
  const safeRaw = raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@]*@/i, '$1***@');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`not a URL: ${safeRaw}`);
  }
  const hadCredentials = url.username !== '' || url.password !== '';
  url.username = '';
  url.password = '';
  const shown = url.href;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const hint = raw.includes('://') ? '' : ` (with its scheme: http://${safeRaw})`;
    throw new TypeError(`not an http(s) URL: ${safeRaw}${hint}`);
  }
  if (hadCredentials)
    throw new TypeError(
      `a URL with credentials is refused: ${shown}; give the API key or token as an option`,
    );
  return shown;
}
