import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@switchyard/telemetry';
import { requestLog } from '../src/http/request-log.ts';
import { stateOf } from '../src/http/request-state.ts';

// JSON.parse keeps the last of two equal keys, so the lines are read as text: a log pipeline that
// rejects or mis-indexes duplicate keys sees them as written.
let server: Server | undefined;
afterEach(() => server?.close());

async function serve(handler: express.RequestHandler): Promise<{ url: string; lines: string[] }> {
  const lines: string[] = [];
  const log = createLogger({
    name: 'test',
    level: 'info',
    destination: { write: (l: string) => lines.push(l) },
  });
  const app = express();
  app.use(requestLog(log));
  app.get('/x', handler);
  server = app.listen(0);
  await new Promise((resolve) => server!.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines };
}

const keysOf = (line: string, key: string) => line.split(`"${key}":`).length - 1;

async function requestLine(url: string, lines: string[]): Promise<string> {
  expect((await fetch(`${url}/x`)).status).toBe(204);
  for (let i = 0; i < 50 && !lines.some((l) => l.includes('"msg":"request"')); i++)
    await new Promise((r) => setTimeout(r, 10));
  return lines.find((l) => l.includes('"msg":"request"'))!;
}

/** What the A2A guard does: the caller and agent on the state, and on the request's logger. */
function asTheGuardDoes(req: express.Request): void {
  const state = stateOf(req);
  state.identity = {
    caller: { tenantId: 'acme', principal: 'alice', role: 'member' },
    credentialId: 'key:1',
  } as never;
  state.agent = { id: 'echo' } as never;
  state.addLogFields({ tenantId: 'acme', principal: 'alice', agentId: 'echo' });
}

describe('the request line', () => {
  it('names tenant, principal and agent once each when the guard put them on the logger', async () => {
    const { url, lines } = await serve((req, res) => {
      asTheGuardDoes(req);
      res.status(204).end();
    });
    const line = await requestLine(url, lines);
    for (const key of ['tenantId', 'principal', 'agentId', 'requestId'])
      expect(keysOf(line, key), key).toBe(1);
    expect(JSON.parse(line)).toMatchObject({ tenantId: 'acme', principal: 'alice', agentId: 'echo' });
  });

  it('names them once too when the logger was made before the fields were added', async () => {
    const { url, lines } = await serve((req, res) => {
      stateOf(req).log.info('early line');
      asTheGuardDoes(req);
      stateOf(req).addLogFields({ tenantId: 'acme' });
      res.status(204).end();
    });
    const line = await requestLine(url, lines);
    for (const key of ['tenantId', 'principal', 'agentId', 'requestId'])
      expect(keysOf(line, key), key).toBe(1);
  });

  it('still names the caller when nothing put it on the logger', async () => {
    const { url, lines } = await serve((req, res) => {
      stateOf(req).identity = {
        caller: { tenantId: 'acme', principal: 'admin', role: 'tenant_admin' },
        credentialId: 'key:2',
      } as never;
      res.status(204).end();
    });
    const line = await requestLine(url, lines);
    expect(JSON.parse(line)).toMatchObject({ tenantId: 'acme', principal: 'admin' });
    expect(keysOf(line, 'tenantId')).toBe(1);
  });
});
