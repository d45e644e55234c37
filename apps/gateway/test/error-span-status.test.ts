import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalError, unavailable } from '@switchyard/protocol';
import { httpServerSpans, silentLogger, SpanStatusCode } from '@switchyard/telemetry';
import { createInMemoryTracing, type InMemoryTracing } from '@switchyard/telemetry/testing';
import { createErrorHandler } from '../src/http/error-handler.ts';
import { requestLog } from '../src/http/request-log.ts';
import { stateOf } from '../src/http/request-state.ts';

// Found in review: a JSON-RPC reply to an internal error is HTTP 200, and the server span marks
// only a 5xx failed, so the request's span said nothing had gone wrong.
let tracing: InMemoryTracing;
let server: Server;
let url: string;
beforeAll(async () => {
  tracing = createInMemoryTracing();
  const app = express();
  app.use(httpServerSpans());
  app.use(requestLog(silentLogger()));
  app.post('/rpc/:kind', (req) => {
    stateOf(req).binding = 'jsonrpc';
    stateOf(req).jsonRpcId = 1;
    throw req.params.kind === 'internal'
      ? internalError('boom')
      : req.params.kind === 'unavailable'
        ? unavailable(1)
        : new Error('bug');
  });
  app.use(createErrorHandler({ mapping: 'v1.0.1', mediaType: 'application/a2a+json', challenges: [] }));
  server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.close();
  await tracing?.shutdown();
});

describe('a JSON-RPC request that fails on the server', () => {
  it.each([
    ['internal', 200],
    ['bug', 200],
    ['unavailable', 503],
  ])('marks its server span failed (%s, HTTP %i)', async (kind, status) => {
    tracing.reset();
    const res = await fetch(`${url}/rpc/${kind}`, { method: 'POST' });
    expect(res.status).toBe(status);
    await res.text();
    const span = await (async () => {
      for (let i = 0; i < 100; i++) {
        const [found] = tracing.spans();
        if (found) return found;
        await new Promise((r) => setImmediate(r));
      }
      throw new Error('no span');
    })();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });
});
