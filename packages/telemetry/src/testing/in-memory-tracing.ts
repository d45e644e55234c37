import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';

export interface InMemoryTracing {
  exporter: InMemorySpanExporter;
  /** Every span ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** Forgets the spans recorded so far. */
  reset(): void;
  /** Unregisters the provider, context manager and propagator; the next helper can register anew. */
  shutdown(): Promise<void>;
}

/**
 * Tracing for a test: a tracer provider exporting synchronously into memory, registered globally
 * with the same W3C propagator and AsyncLocalStorage context manager the SDK uses in production, so
 * the code under test runs its real tracing calls. One per test file (beforeAll / afterAll): the
 * OpenTelemetry globals are process-wide.
 */
export function createInMemoryTracing(): InMemoryTracing {
  // A previous helper (or SDK) left registered would make every registration below a no-op.
  trace.disable();
  context.disable();
  propagation.disable();
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    async shutdown() {
      await provider.shutdown();
      contextManager.disable();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
