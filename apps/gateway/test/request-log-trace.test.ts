import net from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, httpServerSpans } from '@switchyard/telemetry';
import { createInMemoryTracing, type InMemoryTracing } from '@switchyard/telemetry/testing';
import { requestLog } from '../src/http/request-log.ts';

// Found in review: the request line is written on the response's `close`, which ran outside the
// request's span, so the one line every request gets carried no trace id; and a client that left
// before any answer had its span say HTTP 200 (the default status, never sent).
let tracing: InMemoryTracing;
let server: Server;
let port: number;
const lines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  tracing = createInMemoryTracing();
  const log = createLogger({
    name: 'test',
    withTraceIds: true,
    destination: { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  const app = express();
  app.use(httpServerSpans());
  app.use(requestLog(log));
  app.get('/ok', (_req, res) => void res.status(204).end());
  app.get('/never', () => undefined);
  server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await tracing?.shutdown();
});

async function until<T>(find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('not found');
}

describe('the request log line and the server span', () => {
  it('the line carries the trace id of the request span', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/ok`)).status).toBe(204);
    const line = await until(() => lines.find((l) => l.msg === 'request'));
    const span = await until(() => tracing.spans().find((s) => s.attributes['url.path'] === '/ok'));
    expect(line.traceId).toBe(span.spanContext().traceId);
  });

  it('a request its client left before any answer has no status on its span, and its line its trace id', async () => {
    const socket = net.connect(port, '127.0.0.1');
    socket.write('GET /never HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    const span = await until(() => tracing.spans().find((s) => s.attributes['url.path'] === '/never'));
    expect(span.attributes['http.response.status_code']).toBeUndefined();
    expect(span.attributes['error.type']).toBe('aborted');
    // Its line is written on a close that comes from the socket, not the handler: still its trace.
    const line = await until(() =>
      lines.find((l) => l.msg === 'request' && (l.http as { path: string }).path === '/never'),
    );
    expect(line.traceId).toBe(span.spanContext().traceId);
  });
});
