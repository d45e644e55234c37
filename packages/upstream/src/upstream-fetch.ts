import type { Dispatcher } from 'undici';
import { fetch as undiciFetch } from 'undici';
import { UrlRefusedError } from '@switchyard/engine';
import { injectTraceContext, SpanKind, SpanStatusCode, withSpan } from '@switchyard/telemetry';

/** What the last HTTP exchange with the upstream looked like: decides how a failure is classified. */
export interface ExchangeLog {
  /** Status of the most recent response, or undefined when no response arrived (network error). */
  lastStatus: number | undefined;
  /** True once any response was a redirect we refused to follow. */
  redirected: boolean;
}

/** Most bytes of an upstream error answer (a non-2xx body) that are read. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/**
 * Default most bytes of an upstream's unary answer (SendMessage, GetTask, CancelTask): a GetTask
 * of a non-streaming upstream carries every artifact of its task, so twice the default
 * TASK_MAX_ARTIFACT_BYTES (16 MiB). Each event of a stream is bounded by the SDK (4 MiB).
 */
export const DEFAULT_MAX_REPLY_BYTES = 32 * 1024 * 1024;

export interface UpstreamFetchOptions {
  /** The SSRF-guarded dispatcher (engine's createGuardedAgent): checks every connected address. */
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  /**
   * Whether plain http:// URLs may be called (WEBHOOK_ALLOW_HTTP): the card's interface URLs are
   * the upstream's to name, and the credentials must not go out in clear text where it is off.
   */
  allowHttp: boolean;
  /** The run's signal: a cancel or a lost lease aborts every request in flight. */
  signal?: AbortSignal;
  /**
   * Limit for a unary request (response headers and body), and for a stream's opening (its
   * response headers); a stream's events are bounded by the run timeout.
   */
  requestTimeoutMs: number;
  /** Most bytes of a unary answer that are read (default DEFAULT_MAX_REPLY_BYTES). */
  maxReplyBytes?: number;
  log: ExchangeLog;
}

/** An upstream answer longer than the platform reads: the read stopped at the limit. */
export class ResponseTooLargeError extends Error {
  constructor(what: string, maxBytes: number) {
    super(`${what} is larger than the limit of ${formatBytes(maxBytes)}`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * The fetch the A2A SDK client uses to reach an upstream agent: every connection goes through the
 * SSRF guard, redirects are never followed (a redirect could bounce a checked URL to an internal
 * address), the credentials are added, each response's status is noted for error classification,
 * and no answer is read past its limit (a reply, an error body), so an upstream cannot fill the
 * worker's memory.
 */
export function createUpstreamFetch(options: UpstreamFetchOptions): typeof fetch {
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  const upstreamFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    Object.assign(headers, options.headers);
    const url = String(input instanceof Request ? input.url : input);
    if (!options.allowHttp && new URL(url).protocol === 'http:')
      throw new UrlRefusedError('upstream url scheme http: is not allowed (WEBHOOK_ALLOW_HTTP=false)');
    const streaming = headers.accept?.includes('text/event-stream') ?? false;
    const signals = [options.signal, init?.signal ?? undefined].filter((s): s is AbortSignal => !!s);
    if (!streaming) signals.push(AbortSignal.timeout(options.requestTimeoutMs));
    // A stream runs as long as its task; its opening (the response headers) is a request like
    // any other, and an upstream that never answers it must not hold the run until RUN_TIMEOUT_MS.
    const opening = streaming ? new AbortController() : undefined;
    const openTimer =
      opening &&
      setTimeout(
        () =>
          opening.abort(new DOMException(`no answer within ${options.requestTimeoutMs} ms`, 'TimeoutError')),
        options.requestTimeoutMs,
      );
    if (opening) signals.push(opening.signal);
    options.log.lastStatus = undefined;
    const method = init?.method ?? 'GET';
    const target = new URL(url);
    let response: Response;
    try {
      // A client span per request (a stream's: its opening), in the run's trace, whose context
      // goes to the upstream: an upstream that traces joins the task's trace.
      response = await withSpan(
        `a2a.upstream ${method}`,
        { 'http.request.method': method, 'server.address': target.hostname, 'url.path': target.pathname },
        async (span) => {
          Object.assign(headers, injectTraceContext());
          const answer = (await undiciFetch(url, {
            method,
            headers,
            body: init?.body as string | undefined,
            redirect: 'manual',
            signal: AbortSignal.any(signals),
            dispatcher: options.dispatcher,
          })) as unknown as Response;
          span.setAttribute('http.response.status_code', answer.status);
          if (answer.status >= 400)
            span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${answer.status}` });
          return answer;
        },
        { kind: SpanKind.CLIENT },
      );
    } finally {
      clearTimeout(openTimer);
    }
    options.log.lastStatus = response.status;
    if (response.status >= 300 && response.status < 400) {
      options.log.redirected = true;
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the upstream answered HTTP ${response.status}: redirects are not followed`);
    }
    if (!response.ok)
      return limitResponse(response, MAX_ERROR_BODY_BYTES, "the upstream agent's error answer");
    // A stream's events are bounded one by one by the SDK's reader; anything else is read whole.
    const eventStream = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
    if (streaming && eventStream) return response;
    return limitResponse(response, maxReplyBytes, "the upstream agent's answer");
  };
  return upstreamFetch as typeof fetch;
}

/** Statuses whose Response may not have a body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The response with a body that errors with ResponseTooLargeError (and stops reading, releasing
 * the connection) once more than `maxBytes` arrive, or at once when Content-Length says so.
 */
export function limitResponse(response: Response, maxBytes: number, what: string): Response {
  const source = response.body;
  if (!source || NULL_BODY_STATUSES.has(response.status)) return response;
  const declared = Number(response.headers.get('content-length') ?? 0);
  const reader = source.getReader();
  let received = 0;
  const stop = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    reader.cancel().catch(() => undefined);
    controller.error(new ResponseTooLargeError(what, maxBytes));
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (declared > maxBytes) stop(controller);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      received += value.byteLength;
      if (received > maxBytes) return stop(controller);
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** `1 MiB (1048576 bytes)`, or bytes alone below 1 KiB. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0)
    return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}
