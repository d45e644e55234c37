import type { Dispatcher } from 'undici';
import { fetch as undiciFetch } from 'undici';

/** What the last HTTP exchange with the upstream looked like: decides how a failure is classified. */
export interface ExchangeLog {
  /** Status of the most recent response, or undefined when no response arrived (network error). */
  lastStatus: number | undefined;
  /** True once any response was a redirect we refused to follow. */
  redirected: boolean;
}

export interface UpstreamFetchOptions {
  /** The SSRF-guarded dispatcher (engine's createGuardedAgent): checks every connected address. */
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  /** The run's signal: a cancel or a lost lease aborts every request in flight. */
  signal?: AbortSignal;
  /** Limit for a unary request (response headers and body); streams are bounded by the run timeout. */
  requestTimeoutMs: number;
  log: ExchangeLog;
}

/**
 * The fetch the A2A SDK client uses to reach an upstream agent: every connection goes through the
 * SSRF guard, redirects are never followed (a redirect could bounce a checked URL to an internal
 * address), the credentials are added, and each response's status is noted for error classification.
 */
export function createUpstreamFetch(options: UpstreamFetchOptions): typeof fetch {
  const upstreamFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    Object.assign(headers, options.headers);
    const streaming = headers.accept?.includes('text/event-stream') ?? false;
    const signals = [options.signal, init?.signal ?? undefined].filter((s): s is AbortSignal => !!s);
    if (!streaming) signals.push(AbortSignal.timeout(options.requestTimeoutMs));
    options.log.lastStatus = undefined;
    const response = await undiciFetch(String(input instanceof Request ? input.url : input), {
      method: init?.method ?? 'GET',
      headers,
      body: init?.body as string | undefined,
      redirect: 'manual',
      signal: AbortSignal.any(signals),
      dispatcher: options.dispatcher,
    });
    options.log.lastStatus = response.status;
    if (response.status >= 300 && response.status < 400) {
      options.log.redirected = true;
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the upstream answered HTTP ${response.status}: redirects are not followed`);
    }
    return response as unknown as Response;
  };
  return upstreamFetch as typeof fetch;
}
