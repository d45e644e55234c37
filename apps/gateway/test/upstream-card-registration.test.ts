import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_EXECUTOR } from '@switchyard/upstream';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';

// Found in audit: registering an upstream whose card was a sparse 1.0 card or `null` answered
// with the exception's own text ("could not read the upstream agent card: Cannot read properties
// of undefined (reading 'map')"); a card with no interface the platform can call was accepted; and
// a card URL streaming 150 MB was read whole (gateway RSS 144 MB → 786 MB).

let h: Harness;
let server: http.Server;
let base: string;
const cards = new Map<string, unknown>();
let hugeSent = 0;

beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' }, worker: false });
  server = http.createServer((req, res) => {
    if (req.url === '/huge.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(
        `{"name":"Big","supportedInterfaces":[{"url":"${base}/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"pad":"`,
      );
      const chunk = 'a'.repeat(1024 * 1024);
      let i = 0;
      let closed = false;
      res.on('close', () => (closed = true));
      const pump = () => {
        while (i++ < 150 && !closed) {
          hugeSent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!closed) res.end('"}');
      };
      return pump();
    }
    if (!cards.has(req.url ?? '')) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cards.get(req.url ?? '')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await h?.stop();
});

const card = (extra: Record<string, unknown> = {}) => ({
  name: 'N',
  description: 'd',
  version: '1',
  supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  ...extra,
});

let n = 0;
async function registerCard(body: unknown, settings: Record<string, unknown> = {}) {
  const path = `/card-${++n}.json`;
  cards.set(path, body);
  return registerUrl(`${base}${path}`, settings);
}

async function registerUrl(cardUrl: string, settings: Record<string, unknown> = {}) {
  const res = await fetch(`${h.url}/admin/v1/tenants/acme/agents/up-${n}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ executor: UPSTREAM_EXECUTOR, settings: { cardUrl, ...settings } }),
  });
  const body = (await res.json()) as {
    error?: {
      message: string;
      details?: Array<{ fieldViolations?: Array<{ field: string; description: string }> }>;
    };
    agent?: { card: { skills: unknown[]; defaultInputModes: string[] } };
  };
  return { status: res.status, body, message: body.error?.message ?? '' };
}

describe('registering an upstream card', () => {
  it('accepts a sparse 1.0 card, with the fallbacks the card reader applies', async () => {
    const { skills: _s, defaultInputModes: _i, capabilities: _c, ...sparse } = card();
    const res = await registerCard(sparse);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.agent?.card).toMatchObject({ skills: [], defaultInputModes: ['text/plain'] });
  });

  // Found in review: an upstream skill's securityRequirements (the upstream's own schemes, for its
  // credentials) were republished on our card, which declares none of them.
  it("drops the upstream skills' security requirements, which name the upstream's schemes", async () => {
    const res = await registerCard(
      card({
        skills: [
          {
            id: 's',
            name: 'S',
            description: 'd',
            tags: [],
            securityRequirements: [{ schemes: { upstreamOauth: { list: ['admin'] } } }],
          },
        ],
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.agent?.card.skills).toEqual([
      expect.not.objectContaining({ securityRequirements: expect.anything() }),
    ]);
  });

  // Found in review: an upstream card that requires an extension was registered, and every call
  // to it would then have been refused (ExtensionSupportRequired), failing every task.
  it('refuses a card that requires an extension, naming it', async () => {
    const res = await registerCard(
      card({ capabilities: { extensions: [{ uri: 'urn:x:ext', required: true }, { uri: 'urn:x:opt' }] } }),
    );
    expect(res.status).toBe(400);
    expect(res.message).toContain('requires extensions');
    expect(res.message).toContain('urn:x:ext');
    expect(res.message).not.toContain('urn:x:opt');
    const optional = await registerCard(card({ capabilities: { extensions: [{ uri: 'urn:x:opt' }] } }));
    expect(optional.status, JSON.stringify(optional.body)).toBe(200);
  });

  it('refuses a card that is not a card object, or has a broken field, in our words', async () => {
    const none = await registerCard(null);
    expect(none.status).toBe(400);
    expect(none.message).toBe(
      'could not read the upstream agent card: the document is not an A2A agent card: it is null, not a JSON object',
    );
    const skills = await registerCard(card({ skills: [{ name: 'no id' }] }));
    expect(skills.message).toBe('could not read the upstream agent card: skills[0].id is missing');
    expect(JSON.stringify(skills.body)).toContain('"field":"settings.cardUrl"');
    for (const res of [none, skills]) expect(res.message).not.toMatch(/Cannot read|undefined|TypeError/);
  });

  it('refuses a card with no interface the platform can call, naming what it offers', async () => {
    const grpc = await registerCard(
      card({
        supportedInterfaces: [{ url: 'grpc.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      }),
    );
    expect(grpc.status).toBe(400);
    expect(grpc.message).toContain(
      'the card offers no interface this platform can call (it offers GRPC 1.0;',
    );
    const future = await registerCard(
      card({
        supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '9.9' }],
      }),
    );
    expect(future.message).toContain('(it offers JSONRPC 9.9;');
    const binding = await registerCard(card(), { binding: 'HTTP+JSON' });
    expect(binding.status).toBe(400);
    expect(binding.message).toContain('does not offer the requested binding HTTP+JSON');
    expect(binding.message).toContain('(it offers JSONRPC 1.0)');
  });

  it('refuses a card larger than 1 MiB without reading it all', async () => {
    const res = await registerUrl(`${base}/huge.json`);
    expect(res.status).toBe(400);
    expect(res.message).toBe(
      'could not read the upstream agent card: the card is larger than the limit of 1 MiB (1048576 bytes)',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hugeSent).toBeLessThan(24 * 1024 * 1024);
  });
});
