export { createLogger, lazyChild, silentLogger, type Logger, type LoggerConfig } from './logger.ts';
export { startTracing, tracingEnabled, type Tracing, type TracingOptions } from './tracing/start-tracing.ts';
export {
  tracer,
  withSpan,
  recordError,
  recordActiveError,
  TRACER_NAME,
  type SpanOptions,
} from './tracing/spans.ts';
export {
  injectTraceContext,
  extractTraceContext,
  runInContext,
  bindToActiveContext,
  traceContextToCarry,
  type TraceCarrier,
  type CarrierInput,
} from './tracing/propagation.ts';
export { httpServerSpans, type HttpServerSpanOptions } from './tracing/http-server-span.ts';
export { activeTraceIds, type TraceIds } from './tracing/trace-ids.ts';
export {
  createMetrics,
  EVENT_LOOP_SAMPLE_MS,
  type Metrics,
  type MetricsOptions,
  type MetricsText,
} from './metrics/create-metrics.ts';
export { METRIC_NAMES } from './metrics/metric-names.ts';
export { OVERFLOW_LABEL } from './metrics/label-guard.ts';
export type { RequestLabels, RequestMetrics, StreamMetrics } from './metrics/request-metrics.ts';
export type { QueueStats, TaskMetrics } from './metrics/task-metrics.ts';
export type { OutboxStats, PushMetrics, PushOutcome } from './metrics/push-metrics.ts';
export type { PoolLike, ResourceMetrics } from './metrics/resource-metrics.ts';
// The OpenTelemetry API types apps need, so they do not depend on @opentelemetry/api themselves.
export { SpanKind, SpanStatusCode, type Attributes, type Context, type Span } from '@opentelemetry/api';
