import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@switchyard/telemetry';
import { requestLog } from '../src/http/request-log.ts';
import { stateOf } from '../src/http/request-state.ts';

// One structured line per request, carrying the fields later middleware added, and no work at
// all for it when the level leaves it out.
let server: Server | undefined;
afterEach(() => server?.close());

async function serveWith(level: 'info' | 'warn'): Promise<{ url: string; lines: string[] }> {
  const lines: string[] = [];
  const log = createLogger({ name: 'test', level, destination: { write: (l: string) => lines.push(l) } });
  const app = express();
  app.use(requestLog(log));
  app.get('/agents/:tenantId/:agentId/x', (req, res) => {
    stateOf(req).addLogFields({ tenantId: req.params.tenantId });
    res.status(204).end();
  });
  server = app.listen(0);
  await new Promise((resolve) => server!.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines };
}

async function settle(lines: string[], n: number) {
  for (let i = 0; i < 50 && lines.length < n; i++) await new Promise((r) => setTimeout(r, 10));
}

describe('request log', () => {
  it('writes one line per request with the request id and the fields added on the way', async () => {
    const { url, lines } = await serveWith('info');
    expect((await fetch(`${url}/agents/acme/echo/x?key=secret`)).status).toBe(204);
    await settle(lines, 1);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      msg: 'request',
      tenantId: 'acme',
      http: { method: 'GET', path: '/agents/acme/echo/x', status: 204 },
    });
    expect(line.requestId).toEqual(expect.any(String));
    expect(lines[0]).not.toContain('secret');
  });

  it('writes nothing below its level', async () => {
    const { url, lines } = await serveWith('warn');
    expect((await fetch(`${url}/agents/acme/echo/x`)).status).toBe(204);
    await new Promise((r) => setTimeout(r, 50));
    expect(lines).toEqual([]);
  });
});
