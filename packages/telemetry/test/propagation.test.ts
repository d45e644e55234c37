import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  SpanKind,
  SpanStatusCode,
  extractTraceContext,
  injectTraceContext,
  runInContext,
  traceContextToCarry,
  tracer,
  withSpan,
} from '@switchyard/telemetry';
import { createInMemoryTracing, type InMemoryTracing } from '@switchyard/telemetry/testing';

let tracing: InMemoryTracing;
beforeAll(() => {
  tracing = createInMemoryTracing();
});
afterAll(() => tracing.shutdown());
beforeEach(() => tracing.reset());

describe('trace context across a queue (ARCHITECTURE.md §9: the context rides in the job data)', () => {
  it('a span started from an extracted job carrier joins the producer trace as its child', async () => {
    // "gateway": a request span enqueues a job carrying the W3C context.
    const job = await withSpan(
      'POST /rpc',
      { 'a2a.method': 'SendMessage' },
      () => ({ tenantId: 't1', taskId: 'task-1', ...injectTraceContext() }),
      { kind: SpanKind.SERVER },
    );
    expect(job.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    // "worker", another process: only the serialized job crosses over.
    const received = JSON.parse(JSON.stringify(job)) as Record<string, unknown>;
    await runInContext(extractTraceContext(received), () =>
      withSpan('run-task', { 'switchyard.task_id': 'task-1' }, async () => {}, { kind: SpanKind.CONSUMER }),
    );

    const [server, consumer] = tracing.spans();
    expect(server?.name).toBe('POST /rpc');
    expect(consumer?.name).toBe('run-task');
    expect(consumer?.spanContext().traceId).toBe(server?.spanContext().traceId);
    expect(consumer?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(consumer?.parentSpanContext?.isRemote).toBe(true);
    expect(consumer?.kind).toBe(SpanKind.CONSUMER);
  });

  it('the parent option does the same without runInContext, and nested spans follow the active one', async () => {
    const carrier = await withSpan('enqueue', {}, () => injectTraceContext());
    await withSpan('run-task', {}, () => withSpan('agent-step', { step: 1 }, async () => {}), {
      parent: extractTraceContext(carrier),
    });
    const [enqueue, step, run] = tracing.spans();
    const traceId = enqueue?.spanContext().traceId;
    expect(new Set([step, run].map((s) => s?.spanContext().traceId))).toEqual(new Set([traceId]));
    expect(step?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
    expect(step?.attributes).toEqual({ step: 1 });
  });

  it('carries tracestate along with traceparent', () => {
    const incoming = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=abc',
    };
    const carried = runInContext(extractTraceContext(incoming), () => injectTraceContext());
    expect(carried).toEqual(incoming);
  });

  it('a missing or malformed carrier starts a new trace instead of failing', async () => {
    for (const carrier of [
      undefined,
      {},
      { traceparent: 'garbage' },
      { traceparent: ['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'] },
    ]) {
      await withSpan('run-task', {}, async () => {}, { parent: extractTraceContext(carrier) });
    }
    const spans = tracing.spans();
    expect(spans).toHaveLength(4);
    // An array value (a repeated HTTP header) is still read.
    expect(spans[3]?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    for (const span of spans.slice(0, 3)) expect(span.parentSpanContext).toBeUndefined();
  });

  it('injects nothing outside a span, so jobs carry no empty fields', () => {
    expect(injectTraceContext()).toEqual({});
  });

  it('extraction ignores whatever context is active: a consumer never inherits a stray parent', async () => {
    await withSpan('unrelated', {}, async () => {
      await withSpan('run-task', {}, async () => {}, { parent: extractTraceContext({}) });
    });
    const run = tracing.spans().find((s) => s.name === 'run-task');
    expect(run?.parentSpanContext).toBeUndefined();
  });
});

describe('withSpan', () => {
  it('records the exception, sets ERROR status, ends the span and rethrows the same error', async () => {
    const boom = new TypeError('store write conflicted');
    await expect(
      withSpan('transition-task', { 'switchyard.task_id': 't' }, () => Promise.reject(boom)),
    ).rejects.toBe(boom);
    const [span] = tracing.spans();
    expect(span?.ended).toBe(true);
    expect(span?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'TypeError: store write conflicted',
    });
    const event = span?.events.find((e) => e.name === 'exception');
    expect(event?.attributes?.['exception.type']).toBe('TypeError');
    expect(event?.attributes?.['exception.message']).toBe('store write conflicted');
  });

  it('handles a synchronous throw and a non-Error value', async () => {
    await expect(
      withSpan('sync', {}, () => {
        throw 'plain string';
      }),
    ).rejects.toBe('plain string');
    expect(tracing.spans()[0]?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('returns the value, leaves status unset on success and keeps a status the callback set', async () => {
    expect(await withSpan('ok', {}, () => 42)).toBe(42);
    await withSpan('explicit', {}, (span) => span.setStatus({ code: SpanStatusCode.OK }));
    const [ok, explicit] = tracing.spans();
    expect(ok?.status.code).toBe(SpanStatusCode.UNSET);
    expect(explicit?.status.code).toBe(SpanStatusCode.OK);
  });

  it('uses the named tracer as instrumentation scope', async () => {
    await withSpan('x', {}, () => undefined, { tracerName: 'switchyard.pusher' });
    expect(tracing.spans()[0]?.instrumentationScope.name).toBe('switchyard.pusher');
    expect(tracer('a')).toBeDefined();
  });
});

// Found in review: the caller's traceparent and tracestate were spread into every job as they
// came (any header text, up to the header limit), and a caller's tracestate stayed beside the
// gateway's own traceparent when the caller's traceparent was malformed.
describe('traceContextToCarry', () => {
  const valid = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;

  it("carries the active span's context, never the caller's tracestate beside it", async () => {
    const carried = await withSpan('request', {}, (span) => ({
      carrier: traceContextToCarry({ traceparent: 'garbage', tracestate: 'caller=1' }),
      traceId: span.spanContext().traceId,
    }));
    expect(carried.carrier).toEqual({ traceparent: expect.stringContaining(carried.traceId) });
  });

  it("outside a span, carries the caller's context only when it is well formed", () => {
    expect(traceContextToCarry({ traceparent: valid, tracestate: 'k=v' })).toEqual({
      traceparent: valid,
      tracestate: 'k=v',
    });
    expect(traceContextToCarry({ traceparent: valid, tracestate: 'x'.repeat(513) })).toEqual({
      traceparent: valid,
    });
    for (const bad of [
      'garbage',
      `00-${'0'.repeat(32)}-${'b'.repeat(16)}-01`,
      `${valid}-extra`,
      'x'.repeat(10_000),
    ])
      expect(traceContextToCarry({ traceparent: bad, tracestate: 'k=v' })).toEqual({});
  });
});
