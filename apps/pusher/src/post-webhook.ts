import { UrlRefusedError, type UrlPolicy } from '@switchyard/engine';
import { retryAfterMs as readRetryAfter } from '@switchyard/protocol';
import { request, type Dispatcher } from 'undici';
import type { WebhookRequest } from './webhook-request.ts';

/** How one attempt ended. `error` is short and safe to store and show: never a URL, header or body. */
export type PostOutcome =
  | { ok: true; status: number }
  | {
      ok: false;
      status?: number;
      error: string;
      aborted?: boolean;
      /** 410 Gone: the receiver says this webhook no longer exists; no retry will reach it. */
      gone?: boolean;
      /** A 429 or 503 with Retry-After: the receiver's own wait before the next attempt, in ms. */
      retryAfterMs?: number;
      /** Failed before anything was sent, on the pusher's side (its Postgres, a signing secret). */
      local?: boolean;
    };

export interface PostOptions {
  dispatcher: Dispatcher;
  policy: UrlPolicy;
  /** Whole attempt: connect, send, response headers and body. */
  timeoutMs: number;
  /** Aborts the attempt without an outcome worth recording (forced shutdown). */
  signal?: AbortSignal;
}

/** Response bodies are drained (to free the socket) but never read beyond this. */
const MAX_DRAIN_BYTES = 64 * 1024;

/**
 * One POST. Redirects are not followed (undici's `request` never follows them): a 3xx is a failure,
 * because a redirect is an easy way to bounce a checked URL to an internal address. The SSRF check
 * on addresses is in the dispatcher (guarded-agent.ts); the scheme is checked here.
 */
export async function postWebhook(req: WebhookRequest, options: PostOptions): Promise<PostOutcome> {
  const refusal = checkScheme(req.url, options.policy);
  if (refusal) return { ok: false, error: refusal };
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const res = await request(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      dispatcher: options.dispatcher,
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    await res.body.dump({ limit: MAX_DRAIN_BYTES }).catch(() => undefined);
    const status = res.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status };
    if (status >= 300 && status < 400)
      return { ok: false, status, error: `HTTP ${status}: redirect not followed (webhooks must answer 2xx)` };
    if (status === 410)
      return { ok: false, status, error: 'HTTP 410: the receiver says the webhook is gone', gone: true };
    const retryAfterMs =
      status === 429 || status === 503 ? readRetryAfter(res.headers['retry-after']) : undefined;
    return {
      ok: false,
      status,
      error: `HTTP ${status}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  } catch (err) {
    if (options.signal?.aborted) return { ok: false, error: 'aborted by shutdown', aborted: true };
    if (timeout.aborted) return { ok: false, error: `timed out after ${options.timeoutMs} ms` };
    return { ok: false, error: describeError(err) };
  }
}

function checkScheme(raw: string, policy: UrlPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'refused: webhook url is not an absolute URL';
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && policy.allowHttp)) return undefined;
  return `refused: webhook url scheme ${url.protocol} is not allowed`;
}

/** The innermost useful message: undici wraps connector errors, and the SSRF refusal is one. */
function describeError(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UrlRefusedError) return `refused: ${e.message}`;
  }
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    const message = err.message || err.name;
    return code && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return 'unknown error';
}
