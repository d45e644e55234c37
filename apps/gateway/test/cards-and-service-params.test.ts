import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard } from '@switchyard/protocol';
import { A2ATestClient, type BindingName } from './support/a2a-client.ts';
import { REQUIRED_EXTENSION, TRACE_EXTENSION } from './support/fixtures.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { send } from './support/http.ts';

// Digest §4.4 (discovery), §2.5 (card shape) and §6 (A2A-Version, A2A-Extensions).
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await h?.stop();
});

const cardUrl = (agent: string) => `${h.url}/agents/${agent}/.well-known/agent-card.json`;

describe('agent cards (digest §4.4)', () => {
  it('each agent publishes its own card without authentication, with both interfaces and the platform capabilities', async () => {
    const reply = await send('GET', cardUrl('acme/echo'));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('vary')).toMatch(/A2A-Version/i);
    const card = reply.body as AgentCard;
    expect(card.name).toBe('Echo');
    // JSON-RPC twice: 1.0, and 0.3 for 0.3 clients (digest §13.4).
    expect(card.supportedInterfaces).toEqual([
      { url: `${h.url}/agents/acme/echo/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${h.url}/agents/acme/echo/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${h.url}/agents/acme/echo/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toEqual({
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
      extensions: [{ uri: TRACE_EXTENSION, description: 'adds a trace id' }],
    });
    expect(card.securitySchemes).toEqual({
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { apiKey: { list: [] } } }]);
    expect(card.skills.map((s) => s.id)).toEqual(['echo', 'echo-reply']);
    expect(reply.text).not.toMatch(/extendedSkills|executor|settings/);
  });

  it('a name that cannot be an agent is 404 without authentication, never a 500 (a NUL byte reached Postgres)', async () => {
    for (const agent of ['%00/x', 'acme/%00', 'ACME/echo', `acme/${'a'.repeat(64)}`, 'acme/ech%C3%B6']) {
      const reply = await send('GET', cardUrl(agent));
      expect(reply.status, agent).toBe(404);
      expect(reply.text).not.toMatch(/stack|at \w+ \(/);
    }
  });

  it('without A2A-Version the card is the 1.0 card, which strict 1.0 parsers read (a2a-python fetches it so)', async () => {
    const reply = await send('GET', cardUrl('acme/echo'), { noVersion: true });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('vary')).toMatch(/A2A-Version/i);
    const v1 = await send('GET', cardUrl('acme/echo'), { headers: { 'A2A-Version': '1.0' } });
    expect(reply.text).toBe(v1.text);
    const card = reply.body as Record<string, unknown>;
    // No 0.3 field: a protobuf parser of the 1.0 AgentCard refuses unknown fields.
    for (const field of [
      'protocolVersion',
      'url',
      'preferredTransport',
      'security',
      'supportsAuthenticatedExtendedCard',
    ])
      expect(card, field).not.toHaveProperty(field);
    expect(card['supportedInterfaces']).toHaveLength(3);
  });

  it('CARD_VERSION_WITHOUT_HEADER=0.3 serves the 0.3 card without the header, for 0.3 SDK clients', async () => {
    const gateway = await h.startGateway({ CARD_VERSION_WITHOUT_HEADER: '0.3' });
    const url = `${gateway.url}/agents/acme/echo/.well-known/agent-card.json`;
    const bare = await send('GET', url, { noVersion: true });
    expect(bare.body).toMatchObject({ protocolVersion: '0.3.0', preferredTransport: 'JSONRPC' });
    const v1 = await send('GET', url, { headers: { 'A2A-Version': '1.0' } });
    expect(v1.body).not.toHaveProperty('protocolVersion');
  });

  it('with A2A-Version: 0.3 the card is 0.3-shaped, with the 1.0 interfaces embedded (§13.4)', async () => {
    const reply = await send('GET', cardUrl('acme/echo'), {
      noVersion: true,
      headers: { 'A2A-Version': '0.3' },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('vary')).toMatch(/A2A-Version/i);
    const card = reply.body as Record<string, unknown>;
    expect(card).toMatchObject({
      name: 'Echo',
      protocolVersion: '0.3.0',
      url: `${h.url}/agents/acme/echo/rpc`,
      preferredTransport: 'JSONRPC',
      supportsAuthenticatedExtendedCard: true,
      // extendedAgentCard too: a 1.0 client that forgot the header learns the extended card is served.
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      security: [{ apiKey: [] }],
    });
    expect(card['additionalInterfaces']).toBeUndefined();
    expect(card['supportedInterfaces']).toHaveLength(3);
    const v1 = await send('GET', `${cardUrl('acme/echo')}?A2A-Version=1.0`, { noVersion: true });
    expect((v1.body as AgentCard).securityRequirements).toBeDefined();
    expect(v1.headers.get('etag')).not.toBe(reply.headers.get('etag'));
  });

  it('cards carry a strong ETag and Cache-Control, and If-None-Match gets 304', async () => {
    const first = await send('GET', cardUrl('acme/echo'), { noVersion: true });
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const cached = await send('GET', cardUrl('acme/echo'), {
      noVersion: true,
      headers: { 'If-None-Match': etag },
    });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    const weak = await send('GET', cardUrl('acme/echo'), {
      noVersion: true,
      headers: { 'If-None-Match': `"other", W/${etag}` },
    });
    expect(weak.status).toBe(304);
    const stale = await send('GET', cardUrl('acme/echo'), {
      noVersion: true,
      headers: { 'If-None-Match': '"stale"' },
    });
    expect(stale.status).toBe(200);
    const other = await send('GET', cardUrl('acme/booking'), { noVersion: true });
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it("the domain root serves the default agent's card", async () => {
    const root = await send('GET', `${h.url}/.well-known/agent-card.json`, { noVersion: true });
    const direct = await send('GET', cardUrl('acme/echo'), { noVersion: true });
    expect(root.status).toBe(200);
    expect(root.text).toBe(direct.text);
  });

  it('an unknown agent has no card (404 google.rpc.Status)', async () => {
    const reply = await send('GET', cardUrl('acme/nobody'), { noVersion: true });
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      error: { code: 404, status: 'NOT_FOUND', message: 'No agent acme/nobody' },
    });
  });
});

describe.each<BindingName>(['jsonrpc', 'rest'])('%s service parameters (digest §6)', (binding) => {
  const client = (agent = 'acme/echo') =>
    new A2ATestClient(binding, `${h.url}/agents/${agent}`, h.fixtures.keys.alice);

  it('a missing A2A-Version means 0.3: JSON-RPC serves 0.3, REST (1.0 only) is VersionNotSupported', async () => {
    if (binding === 'jsonrpc') {
      // Served as 0.3, where ListTasks is no method: the error says which header was missing.
      const reply = await send('POST', `${h.url}/agents/acme/echo/rpc`, {
        noVersion: true,
        key: h.fixtures.keys.alice,
        body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ error: { code: -32601, data: { reason: 'METHOD_NOT_FOUND' } } });
      expect(JSON.stringify(reply.body)).toContain('A2A-Version: 1.0');
      return;
    }
    const reply = await client().call('ListTasks', {}, { noVersion: true });
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.reason).toBe('VERSION_NOT_SUPPORTED');
    expect(reply.status).toBe(400);
    expect(reply.code).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('"supportedVersions":"1.0"');
  });

  it.each(['0.3', '2.0', 'banana'])(
    'A2A-Version %s is VersionNotSupported unless the binding serves it',
    async (version) => {
      if (binding === 'jsonrpc' && version === '0.3') return; // served: compat-v03.test.ts
      const reply = await client().call(
        'ListTasks',
        {},
        { noVersion: true, headers: { 'A2A-Version': version } },
      );
      expect(!reply.ok && reply.reason).toBe('VERSION_NOT_SUPPORTED');
      expect(JSON.stringify(!reply.ok && reply.body)).toContain(
        binding === 'jsonrpc' ? '"supportedVersions":"1.0,0.3"' : '"supportedVersions":"1.0"',
      );
    },
  );

  it('a patch number is ignored: 1.0.1 is served', async () => {
    const reply = await client().call(
      'ListTasks',
      {},
      { noVersion: true, headers: { 'A2A-Version': '1.0.1' } },
    );
    expect(reply.ok).toBe(true);
  });

  it('the version may come as the A2A-Version query parameter', async () => {
    const url =
      binding === 'jsonrpc'
        ? `${h.url}/agents/acme/echo/rpc?A2A-Version=1.0`
        : `${h.url}/agents/acme/echo/rest/tasks?A2A-Version=1.0`;
    const reply = await send(binding === 'jsonrpc' ? 'POST' : 'GET', url, {
      noVersion: true,
      key: h.fixtures.keys.alice,
      ...(binding === 'jsonrpc' ? { body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} } } : {}),
    });
    expect(reply.status).toBe(200);
    expect(JSON.stringify(reply.body)).toContain('"tasks"');
  });

  it('A2A-Extensions: declared extensions are activated and echoed, others ignored', async () => {
    const reply = await client().call(
      'ListTasks',
      {},
      { headers: { 'A2A-Extensions': `https://unknown.example/x, ${TRACE_EXTENSION}` } },
    );
    expect(reply.ok).toBe(true);
    expect(reply.headers.get('a2a-extensions')).toBe(TRACE_EXTENSION);
    const none = await client().call('ListTasks', {});
    expect(none.headers.get('a2a-extensions')).toBeNull();
  });

  it('a required extension the client did not request is ExtensionSupportRequired', async () => {
    const refused = await client('acme/strict').call('ListTasks', {});
    expect(!refused.ok && refused.reason).toBe('EXTENSION_SUPPORT_REQUIRED');
    expect(!refused.ok && refused.code).toBe(binding === 'jsonrpc' ? -32008 : 400);
    const accepted = await client('acme/strict').call(
      'ListTasks',
      {},
      { headers: { 'A2A-Extensions': REQUIRED_EXTENSION } },
    );
    expect(accepted.ok).toBe(true);
    expect(accepted.headers.get('a2a-extensions')).toBe(REQUIRED_EXTENSION);
  });
});
