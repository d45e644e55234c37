import {
  context,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanKind,
  type Tracer,
} from '@opentelemetry/api';

/** Instrumentation scope of Switchyard's own spans. */
export const TRACER_NAME = 'switchyard';

/** A tracer from the global provider: a no-op until startTracing (or the in-memory helper) ran. */
export function tracer(name: string = TRACER_NAME): Tracer {
  return trace.getTracer(name);
}

export interface SpanOptions {
  /** SERVER for a request, CONSUMER for a job run, PRODUCER for an enqueue, CLIENT for a webhook POST. Default INTERNAL. */
  kind?: SpanKind;
  /** Parent context; default the active one. Pass `extractTraceContext(job.data)` in a consumer. */
  parent?: Context;
  links?: Link[];
  /** Instrumentation scope; default `switchyard`. */
  tracerName?: string;
}

/**
 * Runs `fn` inside a new active span and ends it however `fn` ends. A throw (or rejection) is
 * recorded as an exception event with ERROR status and rethrown unchanged: the span says what
 * failed, the caller still decides what to do about it. `fn` may add attributes, events or, on
 * success, a status of its own on the span it receives.
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T> | T,
  options: SpanOptions = {},
): Promise<T> {
  const { kind, parent = context.active(), links, tracerName } = options;
  return tracer(tracerName).startActiveSpan(
    name,
    { attributes, ...(kind === undefined ? {} : { kind }), ...(links ? { links } : {}) },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        recordError(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks `span` failed by `err`: an exception event (type, message, stack) and ERROR status. */
export function recordError(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  else span.recordException({ name: 'NonError', message: String(err) });
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  });
}

/**
 * Marks the active span (a request's server span, a run's consumer span) failed with `err`, for a
 * failure that is answered rather than thrown through it; nothing happens outside a span.
 */
export function recordActiveError(err: unknown): void {
  const span = trace.getActiveSpan();
  if (span) recordError(span, err);
}
