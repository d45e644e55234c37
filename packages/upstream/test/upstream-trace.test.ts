import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedAgent } from '@switchyard/engine';
import { SpanKind, SpanStatusCode, withSpan } from '@switchyard/telemetry';
import { createInMemoryTracing, type InMemoryTracing } from '@switchyard/telemetry/testing';
import { createUpstreamFetch } from '../src/upstream-fetch.ts';
import { startRawUpstream, type RawUpstream } from './support/raw-upstream.ts';

// Found in review: a worker's calls to an upstream agent made no span and sent no trace context,
// so they were invisible in the task's trace and an upstream that traces could not join it.
let tracing: InMemoryTracing;
let up: RawUpstream;
const seen: Array<string | undefined> = [];
beforeAll(async () => {
  tracing = createInMemoryTracing();
  up = await startRawUpstream();
  up.route('/rpc', (req, res) => {
    seen.push(req.headers.traceparent as string | undefined);
    res.writeHead(req.method === 'POST' ? 200 : 503, { 'content-type': 'application/json' }).end('{}');
  });
});
afterAll(async () => {
  await up?.stop();
  await tracing?.shutdown();
});

const upstreamFetch = createUpstreamFetch({
  dispatcher: createGuardedAgent({
    policy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
    connectTimeoutMs: 5_000,
  }),
  headers: {},
  allowHttp: true,
  requestTimeoutMs: 5_000,
  log: { lastStatus: undefined, redirected: false },
});

describe('a call to an upstream agent inside a run', () => {
  it('is a client span of the run, whose context the upstream receives', async () => {
    const traceId = await withSpan('run-task', {}, async (run) => {
      await upstreamFetch(`${up.url}/rpc`, { method: 'POST', body: '{}' });
      await upstreamFetch(`${up.url}/rpc`, { method: 'GET' });
      return run.spanContext().traceId;
    });
    const calls = tracing.spans().filter((s) => s.name.startsWith('a2a.upstream'));
    expect(
      calls.map((s) => [s.name, s.kind, s.status.code, s.attributes['http.response.status_code']]),
    ).toEqual([
      ['a2a.upstream POST', SpanKind.CLIENT, SpanStatusCode.UNSET, 200],
      ['a2a.upstream GET', SpanKind.CLIENT, SpanStatusCode.ERROR, 503],
    ]);
    expect(seen).toEqual(calls.map((s) => `00-${traceId}-${s.spanContext().spanId}-01`));
  });
});
