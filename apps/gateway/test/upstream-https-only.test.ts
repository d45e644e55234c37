import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_EXECUTOR } from '@switchyard/upstream';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';

// Found in review: the admin API read an upstream agent's card under its own rule, http allowed,
// whatever WEBHOOK_ALLOW_HTTP said. With https only (the Kubernetes base), an http:// upstream was
// registered, its credential headers went out in the clear to read its card, and then every task
// of it failed, since the workers keep to the setting.
let h: Harness;
let server: http.Server;
let reads = 0;

beforeAll(async () => {
  h = await startHarness({
    env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_ALLOW_HTTP: 'false' },
    worker: false,
  });
  server = http.createServer((_req, res) => {
    reads++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await h?.stop();
});

describe('WEBHOOK_ALLOW_HTTP=false', () => {
  it('an upstream agent at an http:// card URL is refused, and its card is not read', async () => {
    const cardUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/card.json`;
    const res = await fetch(`${h.url}/admin/v1/tenants/acme/agents/plain`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        executor: UPSTREAM_EXECUTOR,
        settings: { cardUrl, credentials: { scheme: 'bearer', token: 'upstream-secret' } },
      }),
    });
    const body = (await res.json()) as { error?: { message: string } };
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error?.message).toMatch(/scheme http: is not allowed/);
    expect(reads).toBe(0);
  });
});
