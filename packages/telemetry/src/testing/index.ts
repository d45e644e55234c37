// Test helpers (`@switchyard/telemetry/testing`): never imported by production code.
export { createInMemoryTracing, type InMemoryTracing } from './in-memory-tracing.ts';
export { createOtlpCapture, type CapturedSpan, type OtlpCapture } from './otlp-capture.ts';
