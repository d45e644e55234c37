import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startHarness, type Harness } from '../support/harness.ts';
import { send } from '../support/http.ts';
import { userMessage } from '../support/messages.ts';
import { rawRequest, type ProbeReply } from './fuzz-probe.ts';
import { a2aRoutes, adminRoutes, toRequest, type RouteCall } from './routes.ts';
import { snapshotStore } from './store-snapshot.ts';
import { expectNoLeak, expectWellFormedRestError, expectWellFormedRpc } from './well-formed.ts';

// Issue 8, security suite: missing, malformed, expired, revoked and wrong-tenant API keys on every
// route (digest §9 rule 2: every request authenticated; rule 4: other tenants see nothing), and
// the operator routes refused to every tenant credential. No worker runs: the store holds still,
// so "nothing changed" is exact.
let h: Harness;
let taskId: string;
let configId: string;
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  h = await startHarness({
    worker: false,
    env: { BLOCKING_TIMEOUT_MS: '0', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
  });
  const base = `${h.url}/agents/acme/echo/rest`;
  const sent = await send('POST', `${base}/message:send`, {
    key: h.fixtures.keys.alice,
    body: { message: userMessage('owned by alice'), configuration: { returnImmediately: true } },
  });
  taskId = (sent.body as { task: { id: string } }).task.id;
  const config = await send('POST', `${base}/tasks/${taskId}/pushNotificationConfigs`, {
    key: h.fixtures.keys.alice,
    body: { url: 'http://127.0.0.1:9/alice' },
  });
  configId = (config.body as { id: string }).id;
});
afterAll(async () => {
  await h?.stop();
});

const acmeRoutes = () => a2aRoutes('/agents/acme/echo', 'acme', taskId, configId);

/** Calls every route with the headers and checks each reply; the store must not change. */
async function everyRoute(
  routes: RouteCall[],
  headers: Record<string, string>,
  check: (reply: ProbeReply, route: RouteCall) => void,
): Promise<void> {
  const before = await snapshotStore(h.db.pool);
  for (const route of routes) {
    const reply = await rawRequest(toRequest(h.url, route, headers));
    expect(reply.stream, `${route.name} opened a stream`).toBe(false);
    check(reply, route);
  }
  expect(await snapshotStore(h.db.pool)).toEqual(before);
}

function expectUnauthenticated(reply: ProbeReply, route: RouteCall): void {
  expect(reply.status, `${route.name}: ${reply.text.slice(0, 200)}`).toBe(401);
  expect(reply.headers.get('www-authenticate'), route.name).toContain('ApiKey header="X-API-Key"');
  if (route.binding === 'jsonrpc') {
    expectWellFormedRpc(reply);
    expect(reply.body, route.name).toMatchObject({
      id: (route.body as { id: number }).id,
      error: { data: [{ reason: 'UNAUTHENTICATED' }] },
    });
  } else {
    expectWellFormedRestError(reply);
    expect(reply.body, route.name).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  }
}

function expectHiddenAgent(reply: ProbeReply, route: RouteCall): void {
  expect(reply.status, `${route.name}: ${reply.text.slice(0, 200)}`).toBe(404);
  if (route.binding === 'jsonrpc') expectWellFormedRpc(reply);
  else expectWellFormedRestError(reply);
  expect(reply.text).toContain('TASK_NOT_FOUND');
}

function expectAdminRefused(reply: ProbeReply, route: RouteCall): void {
  expect(reply.status, `${route.name}: ${reply.text.slice(0, 200)}`).toBe(401);
  expectNoLeak(reply.text);
  if (route.binding === 'admin') expect(reply.body).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  else expect(reply.headers.get('www-authenticate')).toMatch(/^Basic/);
}

describe('API keys on every A2A route, both bindings', () => {
  it.each<[string, () => Record<string, string>]>([
    ['no credentials', () => ({})],
    ['an empty X-API-Key', () => ({ 'X-API-Key': '' })],
    ['a blank X-API-Key', () => ({ 'X-API-Key': '   ' })],
    ['garbage', () => ({ 'X-API-Key': 'not-a-key' })],
    ['a real key cut short', () => ({ 'X-API-Key': h.fixtures.keys.alice.slice(0, -1) })],
    ['a real key with a byte more', () => ({ 'X-API-Key': `${h.fixtures.keys.alice}x` })],
    ['a real key in the wrong case', () => ({ 'X-API-Key': h.fixtures.keys.alice.toUpperCase() })],
    ['an 8 KiB key', () => ({ 'X-API-Key': `sy_${'k'.repeat(8192)}` })],
    ['a SQL-looking key', () => ({ 'X-API-Key': "' OR '1'='1" })],
    ['the admin token as a key', () => ({ 'X-API-Key': ADMIN_TOKEN })],
    ['the admin token as a bearer (JWT is off)', () => ({ Authorization: `Bearer ${ADMIN_TOKEN}` })],
    ['a real key as a bearer (JWT is off)', () => ({ Authorization: `Bearer ${h.fixtures.keys.alice}` })],
    [
      'a real key as HTTP Basic',
      () => ({ Authorization: `Basic ${btoa(`alice:${h.fixtures.keys.alice}`)}` }),
    ],
  ])('%s is 401 everywhere and changes nothing', async (_what, headers) => {
    await everyRoute(acmeRoutes(), headers(), expectUnauthenticated);
  });

  it('an expired key is 401 everywhere', async () => {
    const expired = await h.admin.createApiKey({
      tenantId: 'acme',
      principal: 'alice',
      role: 'tenant_admin',
      expiresAt: new Date(Date.now() - 60_000),
    });
    await everyRoute(acmeRoutes(), { 'X-API-Key': expired.plaintext }, expectUnauthenticated);
  });

  it('a revoked key and a rotated-away key are 401 everywhere, even right after use', async () => {
    const revoked = await h.admin.createApiKey({ tenantId: 'acme', principal: 'alice', role: 'user' });
    const rotated = await h.admin.createApiKey({ tenantId: 'acme', principal: 'alice', role: 'user' });
    for (const k of [revoked, rotated]) {
      // Used once so a cached lookup exists: revocation must drop it, not wait for it to expire.
      expect((await send('GET', `${h.url}/agents/acme/echo/rest/tasks`, { key: k.plaintext })).status).toBe(
        200,
      );
    }
    const url = `${h.url}/admin/v1/tenants/acme/api-keys`;
    expect((await send('DELETE', `${url}/${revoked.key.id}`, { headers: admin })).status).toBe(200);
    expect((await send('POST', `${url}/${rotated.key.id}:rotate`, { headers: admin })).status).toBe(200);
    await everyRoute(acmeRoutes(), { 'X-API-Key': revoked.plaintext }, expectUnauthenticated);
    await everyRoute(acmeRoutes(), { 'X-API-Key': rotated.plaintext }, expectUnauthenticated);
  });

  it("a disabled tenant's keys are 401 everywhere", async () => {
    const url = `${h.url}/admin/v1/tenants/globex`;
    const carol = { 'X-API-Key': h.fixtures.keys.carol };
    expect(
      (await send('GET', `${h.url}/agents/globex/echo/rest/tasks`, { key: h.fixtures.keys.carol })).status,
    ).toBe(200);
    expect((await send('POST', `${url}:disable`, { headers: admin })).status).toBe(200);
    try {
      await everyRoute(
        a2aRoutes('/agents/globex/echo', 'globex', taskId, configId),
        carol,
        expectUnauthenticated,
      );
    } finally {
      expect((await send('POST', `${url}:enable`, { headers: admin })).status).toBe(200);
    }
  });

  it("another tenant's valid key is answered like a missing agent (404) everywhere", async () => {
    await everyRoute(acmeRoutes(), { 'X-API-Key': h.fixtures.keys.carol }, expectHiddenAgent);
    await everyRoute(
      a2aRoutes('/agents/globex/echo', 'globex', taskId, configId),
      { 'X-API-Key': h.fixtures.keys.alice },
      expectHiddenAgent,
    );
  });

  it('control: the owner is authenticated on every route (the list reaches the operations)', async () => {
    for (const route of acmeRoutes()) {
      const reply = await rawRequest(toRequest(h.url, route, { 'X-API-Key': h.fixtures.keys.alice }));
      expect(reply.status, `${route.name}: ${reply.text.slice(0, 200)}`).not.toBe(401);
    }
  });

  it("a tenant's own agent with another tenant's /{tenant} segment is 404", async () => {
    const twinned = a2aRoutes('/agents/acme/echo', 'globex', taskId, configId).filter((r) =>
      r.path.includes('/globex/'),
    );
    expect(twinned.length).toBeGreaterThan(0);
    await everyRoute(twinned, { 'X-API-Key': h.fixtures.keys.alice }, expectHiddenAgent);
  });
});

describe('operator routes refuse tenant credentials', () => {
  const routes = () => adminRoutes('acme', h.fixtures.keyIds.alice, taskId);

  it.each<[string, () => Record<string, string>]>([
    ['no credentials', () => ({})],
    ["a user's key", () => ({ 'X-API-Key': h.fixtures.keys.alice })],
    ["a tenant admin's key", () => ({ 'X-API-Key': h.fixtures.keys.boss })],
    ["a tenant admin's key as a bearer", () => ({ Authorization: `Bearer ${h.fixtures.keys.boss}` })],
    [
      "a tenant admin's key as the Basic password",
      () => ({ Authorization: `Basic ${btoa(`ops:${h.fixtures.keys.boss}`)}` }),
    ],
    ['the admin token in the API-key header', () => ({ 'X-API-Key': ADMIN_TOKEN })],
    [
      'a bearer that is a prefix of the admin token',
      () => ({ Authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }),
    ],
  ])('%s: every admin and dashboard route is 401 and nothing changes', async (_what, headers) => {
    await everyRoute(routes(), headers(), expectAdminRefused);
    const queues = await fetch(`${h.url}/admin/queues/api/queues`, { headers: admin });
    expect(
      ((await queues.json()) as { queues: Array<{ isPaused: boolean }> }).queues.every((q) => !q.isPaused),
    ).toBe(true);
  });

  it('control: the admin token opens the read-only operator routes', async () => {
    for (const route of routes().filter((r) => r.method === 'GET')) {
      const reply = await rawRequest(toRequest(h.url, route, admin));
      expect(reply.status, route.name).toBe(200);
    }
  });

  it('the public card and ops probes need no credentials and hold no tenant data', async () => {
    for (const path of ['/healthz', '/readyz', '/agents/acme/echo/.well-known/agent-card.json']) {
      const reply = await send('GET', `${h.url}${path}`);
      expect(reply.status, path).toBe(200);
      expect(reply.text).not.toContain(taskId);
    }
  });
});

describe('a flood of made-up keys from one address', () => {
  it('is answered 429 without store lookups past the address budget, while known keys keep working', async () => {
    const throttled = await h.startGateway({ AUTH_FAILURES_PER_ADDRESS_PER_SEC: '3' });
    const url = `${throttled.url}/agents/acme/echo/rest/tasks`;
    expect((await send('GET', url, { key: h.fixtures.keys.alice })).status).toBe(200); // now cached
    const madeUp = (i: number) => `sy_made_up_${i}_${crypto.randomUUID()}`;
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await send('GET', url, { key: madeUp(i) })).status);
    // A burst at once: lookups in flight count too, so it cannot pass the budget before one fails.
    const burst = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send('GET', url, { key: madeUp(100 + i) })),
    );
    statuses.push(...burst.map((r) => r.status));
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    // However they fell across second boundaries, each second let at most 3 failures reach the
    // store, plus at most 3 lookups in flight when a second began.
    const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3 * seconds + 3);
    expect((await send('GET', url, { key: h.fixtures.keys.alice })).status).toBe(200);
  });
});
