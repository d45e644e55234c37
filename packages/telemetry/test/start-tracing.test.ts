import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, tracingEnabled } from '@switchyard/telemetry';
import { createOtlpCapture, type OtlpCapture } from '@switchyard/telemetry/testing';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/traced-process.ts', import.meta.url));

describe('tracingEnabled: off unless an exporter is configured (issue 6: off by default in tests)', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }, false],
    [{ OTEL_TRACES_EXPORTER: 'none,otlp' }, true],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }, true],
  ] as const)('%j → %s', (env, enabled) => {
    expect(tracingEnabled(env)).toBe(enabled);
  });

  it('startTracing without configuration starts nothing and shuts down at once', async () => {
    const tracing = await startTracing({ serviceName: 'gateway', env: {} });
    expect(tracing.enabled).toBe(false);
    await tracing.shutdown();
  });
});

describe('one trace across processes, exported over OTLP by the real SDK', () => {
  let capture: OtlpCapture;
  beforeAll(async () => {
    capture = await createOtlpCapture();
  });
  afterAll(() => capture.close());

  async function processSpan(service: string, spanName: string, carrier?: unknown) {
    const env = {
      ...process.env,
      ...capture.env,
      OTEL_SERVICE_NAME: service,
      SPAN_NAME: spanName,
      TRACE_CARRIER: carrier ? JSON.stringify(carrier) : '',
    };
    const { stdout } = await run(process.execPath, [child], { env });
    return JSON.parse(stdout) as { enabled: boolean; carrier: { traceparent?: string } };
  }

  it('gateway → worker → pusher spans share one trace id and chain parent to child', async () => {
    const gateway = await processSpan('switchyard-gateway', 'POST /rpc');
    const worker = await processSpan('switchyard-worker', 'run-task', gateway.carrier);
    await processSpan('switchyard-pusher', 'deliver-push', worker.carrier);
    expect(gateway.enabled).toBe(true);

    // Each child flushed before it exited (shutdown awaits the export), so all spans are here.
    const spans = capture.spans();
    const byName = (name: string) => spans.find((s) => s.name === name);
    const [post, run, deliver] = [byName('POST /rpc'), byName('run-task'), byName('deliver-push')];
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([post?.traceId]));
    expect(spans).toHaveLength(6);
    expect([post?.service, run?.service, deliver?.service]).toEqual([
      'switchyard-gateway',
      'switchyard-worker',
      'switchyard-pusher',
    ]);
    // The job carries the innermost active span (the store write that enqueued).
    const gatewayWrite = spans.find((s) => s.name === 'store-write' && s.service === 'switchyard-gateway');
    expect(run?.parentSpanId).toBe(gatewayWrite?.spanId);
    expect(gatewayWrite?.parentSpanId).toBe(post?.spanId);
    expect(post?.parentSpanId).toBe('');
    expect(run?.attributes['switchyard.task_id']).toBe('task-1');
  });

  it('OTEL_SERVICE_NAME wins; serviceName is the fallback', async () => {
    const env = { ...process.env, ...capture.env, SPAN_NAME: 'unnamed' } as NodeJS.ProcessEnv;
    delete env.OTEL_SERVICE_NAME;
    await run(process.execPath, [child], { env });
    expect(capture.spans().find((s) => s.name === 'unnamed')?.service).toBe('fallback-name');
  });
});

describe('a collector that is down or hangs does not break the drain', () => {
  async function drainWith(endpoint: string) {
    const env = {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_SERVICE_NAME: 'switchyard-worker',
      SHUTDOWN_TIMEOUT_MS: '300',
      TRACE_CARRIER: '',
    };
    // execFile rejects on a non-zero exit: resolving means shutdown() neither threw nor hung.
    const { stdout, stderr } = await run(process.execPath, [child], { env });
    expect((JSON.parse(stdout) as { enabled: boolean }).enabled).toBe(true);
    return stderr;
  }

  it('refused connections: shutdown resolves and says the spans were dropped', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await drainWith(`http://127.0.0.1:${port}`)).toMatch(/tracing shutdown (failed|timed out)/);
  });

  it('a collector that never answers: shutdown gives up after shutdownTimeoutMs', async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const stderr = await drainWith(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
      expect(stderr).toContain('tracing shutdown timed out');
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
