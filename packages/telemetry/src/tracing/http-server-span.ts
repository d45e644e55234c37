import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import { tracer } from './spans.ts';

export interface HttpServerSpanOptions {
  /**
   * A low-cardinality name for what was served, read when the response ends (an Express route
   * pattern, or the A2A method): it names the span `METHOD route`. Never the raw path.
   */
  route?: (req: IncomingMessage, res: ServerResponse) => string | undefined;
  /** Requests left untraced. Default: the probes and the metrics scrape. */
  ignore?: (req: IncomingMessage) => boolean;
}

const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Connect/Express middleware opening one SERVER span per request, as the parent of everything
 * the request does (engine calls, the enqueue that carries the context on to the worker). The
 * caller's `traceparent` (or whatever OTEL_PROPAGATORS reads) becomes the parent, so a client's
 * trace continues through the platform. The span ends when the response closes (SSE included);
 * 5xx marks it failed, 4xx does not (the server did its job).
 */
export function httpServerSpans(options: HttpServerSpanOptions = {}) {
  const ignore = options.ignore ?? ((req: IncomingMessage) => OPS_PATHS.has(pathOf(req)));
  return (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void => {
    if (ignore(req)) return next();
    const method = req.method ?? 'GET';
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer().startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: pathOf(req) },
      },
      parent,
    );
    res.once('close', () => {
      const route = options.route?.(req, res);
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      // A client that left before any answer got no status: 200 is only the default.
      if (!res.headersSent) span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
      else span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (res.headersSent && res.statusCode >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(res.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}

/** The path without its query string: queries may carry tokens and have no place in a span. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}
