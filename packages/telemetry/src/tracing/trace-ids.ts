import { context, trace, isSpanContextValid } from '@opentelemetry/api';

export interface TraceIds {
  traceId: string;
  spanId: string;
}

/**
 * The ids of the span active in the current async context, or undefined outside one (and always
 * undefined while tracing is off: there is no context manager to carry a span then).
 */
export function activeTraceIds(): TraceIds | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const ctx = span.spanContext();
  return isSpanContextValid(ctx) ? { traceId: ctx.traceId, spanId: ctx.spanId } : undefined;
}
