import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  SpanKind,
  SpanStatusCode,
  createLogger,
  httpServerSpans,
  lazyChild,
  injectTraceContext,
  withSpan,
} from '@switchyard/telemetry';
import { createInMemoryTracing, type InMemoryTracing } from '@switchyard/telemetry/testing';

let tracing: InMemoryTracing;
beforeAll(() => {
  tracing = createInMemoryTracing();
});
afterAll(() => tracing.shutdown());
beforeEach(() => tracing.reset());

/** A server whose handler runs behind the middleware, like an Express app would. */
async function serve(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const middleware = httpServerSpans({
    route: (req) => (req.url?.startsWith('/agents/') ? '/agents/:tenantId/:agentId/rpc' : undefined),
  });
  const server = http.createServer((req, res) => middleware(req, res, () => handler(req, res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Spans end on 'close', which can follow the client's read of the body by a tick. */
async function spansNamed(name: string, count = 1) {
  for (let i = 0; i < 100 && tracing.spans().filter((s) => s.name === name).length < count; i++)
    await new Promise((r) => setImmediate(r));
  return tracing.spans().filter((s) => s.name === name);
}

describe('httpServerSpans', () => {
  it('continues the caller trace, names the span by route and makes it the parent of handler spans', async () => {
    const app = await serve((_req, res) => {
      void withSpan('send-message', {}, () => res.end(JSON.stringify(injectTraceContext())));
    });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const reply = await fetch(`${app.url}/agents/demo/echo/rpc?key=secret`, {
      method: 'POST',
      headers: { traceparent },
    });
    const carried = (await reply.json()) as { traceparent: string };
    await app.close();
    const [server] = await spansNamed('POST /agents/:tenantId/:agentId/rpc');
    const [inner] = await spansNamed('send-message');
    expect(server?.kind).toBe(SpanKind.SERVER);
    expect(server?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(server?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(server?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/agents/demo/echo/rpc',
      'http.response.status_code': 200,
      'http.route': '/agents/:tenantId/:agentId/rpc',
    });
    expect(inner?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    // What the handler would put in the job continues the same trace.
    expect(carried.traceparent).toContain('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('marks 5xx failed, leaves 4xx unset, and skips probes and scrapes', async () => {
    const app = await serve((req, res) => {
      res.statusCode = req.url === '/boom' ? 503 : 404;
      res.end();
    });
    for (const path of ['/boom', '/missing', '/healthz', '/readyz', '/metrics'])
      await (await fetch(`${app.url}${path}`)).arrayBuffer();
    await app.close();
    const spans = await spansNamed('GET', 2);
    expect(spans.map((s) => s.attributes['url.path'])).toEqual(['/boom', '/missing']);
    expect(spans[0]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[0]?.attributes['error.type']).toBe('503');
    expect(spans[1]?.status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe('createLogger withTraceIds', () => {
  function capture() {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    return { lines, destination };
  }

  it('puts the active span ids on lines written inside a span and none outside', async () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 'worker', withTraceIds: true, destination });
    log.info('before');
    await withSpan('run-task', {}, async (span) => {
      await Promise.resolve();
      log.child({ taskId: 't1' }).info('inside');
      expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    });
    const run = tracing.spans()[0];
    expect(lines[0]).not.toHaveProperty('traceId');
    expect(lines[1]).toMatchObject({
      msg: 'inside',
      taskId: 't1',
      service: 'worker',
      traceId: run?.spanContext().traceId,
      spanId: run?.spanContext().spanId,
    });
  });

  it('leaves ids off by default and still redacts secrets', async () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 'gateway', destination });
    await withSpan('x', {}, () =>
      log.info({ config: { token: 'abc', secret: 's' }, headers: { authorization: 'Bearer x' } }, 'line'),
    );
    expect(lines[0]).not.toHaveProperty('traceId');
    expect(lines[0]).toMatchObject({
      config: { token: '[redacted]', secret: '[redacted]' },
      headers: { authorization: '[redacted]' },
    });
  });
});

describe('lazyChild', () => {
  it('makes the child on the first write at an enabled level, with its bindings; disabled levels make none', () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const log = createLogger({ name: 'worker', level: 'warn', destination });
    const made = vi.spyOn(log, 'child');
    const run = lazyChild(log, { taskId: 't1' });
    run.info({ step: 1 }, 'not written');
    run.debug('not written either');
    expect(made).not.toHaveBeenCalled();
    run.warn({ step: 2 }, 'written');
    run.error('also written');
    expect(made).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'written', step: 2, taskId: 't1', level: 40 }),
      expect.objectContaining({ msg: 'also written', taskId: 't1', level: 50 }),
    ]);
    expect(run.isLevelEnabled('warn')).toBe(true);
  });
});
