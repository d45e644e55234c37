import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type RunningGateway } from '../support/harness.ts';
import { send } from '../support/http.ts';
import { userMessage } from '../support/messages.ts';
import { rawRequest, type ProbeReply } from './fuzz-probe.ts';
import { a2aRoutes, adminRoutes, toRequest, type RouteCall } from './routes.ts';
import { snapshotStore } from './store-snapshot.ts';
import { expectWellFormedRestError, expectWellFormedRpc } from './well-formed.ts';

// Issue 8, security suite: bad, forged, expired and wrong-tenant bearer JWTs on every route
// (digest §9 rule 2), and no JWT, however privileged its claims, opens the operator routes.
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'switchyard-test';
let h: Harness;
let gateway: RunningGateway;
let jwks: http.Server;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;
let publicJwk: JWK;
let taskId: string;
let configId: string;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwks = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  h = await startHarness({
    worker: false,
    env: { BLOCKING_TIMEOUT_MS: '0', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
  });
  gateway = await h.startGateway({
    JWT_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
  });
  const base = `${gateway.url}/agents/acme/echo/rest`;
  const alice = { Authorization: `Bearer ${await token({ tenant: 'acme' })}` };
  const sent = await send('POST', `${base}/message:send`, {
    headers: alice,
    body: { message: userMessage('owned by alice'), configuration: { returnImmediately: true } },
  });
  taskId = (sent.body as { task: { id: string } }).task.id;
  const config = await send('POST', `${base}/tasks/${taskId}/pushNotificationConfigs`, {
    headers: alice,
    body: { url: 'http://127.0.0.1:9/alice' },
  });
  configId = (config.body as { id: string }).id;
});
afterAll(async () => {
  await h?.stop();
  jwks?.close();
});

interface TokenOptions {
  key?: CryptoKey;
  kid?: string;
  issuer?: string;
  audience?: string;
  subject?: string | undefined;
  /** null: no `exp` claim at all. */
  expires?: number | string | null;
  notBefore?: number | string;
}

function token(claims: Record<string, unknown>, o: TokenOptions = {}): Promise<string> {
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: o.kid ?? 'k1' })
    .setIssuer(o.issuer ?? ISSUER)
    .setAudience(o.audience ?? AUDIENCE)
    .setIssuedAt();
  if (o.expires !== null) jwt = jwt.setExpirationTime(o.expires ?? '5m');
  if (!('subject' in o) || o.subject !== undefined) jwt = jwt.setSubject(o.subject ?? 'alice');
  if (o.notBefore !== undefined) jwt = jwt.setNotBefore(o.notBefore);
  return jwt.sign(o.key ?? signingKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** An unsigned token (`alg: none`) with claims that would otherwise be accepted. */
const unsigned = () =>
  `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ tenant: 'acme', sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })}.`;

/** HS256 "signed" with the public key as the secret: the classic algorithm-confusion forgery. */
async function algorithmConfusion(): Promise<string> {
  const secret = new TextEncoder().encode(JSON.stringify(publicJwk));
  return new SignJWT({ tenant: 'acme' })
    .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('alice')
    .setExpirationTime('5m')
    .sign(secret);
}

async function everyRoute(
  routes: RouteCall[],
  headers: Record<string, string>,
  check: (reply: ProbeReply, route: RouteCall) => void,
): Promise<void> {
  const before = await snapshotStore(h.db.pool);
  for (const route of routes) {
    const reply = await rawRequest(toRequest(gateway.url, route, headers));
    expect(reply.stream, `${route.name} opened a stream`).toBe(false);
    check(reply, route);
  }
  expect(await snapshotStore(h.db.pool)).toEqual(before);
}

function expectUnauthenticated(reply: ProbeReply, route: RouteCall): void {
  expect(reply.status, `${route.name}: ${reply.text.slice(0, 200)}`).toBe(401);
  const challenge = reply.headers.get('www-authenticate') ?? '';
  expect(challenge).toContain('ApiKey');
  expect(challenge).toContain('Bearer realm="switchyard"');
  if (route.binding === 'jsonrpc') expectWellFormedRpc(reply);
  else expectWellFormedRestError(reply);
}

const routes = () => a2aRoutes('/agents/acme/echo', 'acme', taskId, configId);

describe('bearer JWTs on every A2A route, both bindings', () => {
  it.each<[string, () => Promise<string>]>([
    ['a bare "Bearer"', async () => 'Bearer'],
    ['a token that is not a JWT', async () => 'Bearer not-a-jwt'],
    ['three garbage segments', async () => 'Bearer a.b.c'],
    ['an 8 KiB token', async () => `Bearer ${'a'.repeat(8192)}`],
    ['an unsigned token (alg none)', async () => `Bearer ${unsigned()}`],
    [
      'a token signed by a key outside the JWKS',
      async () => `Bearer ${await token({ tenant: 'acme' }, { key: strangerKey })}`,
    ],
    [
      'a token naming an unknown key id',
      async () => `Bearer ${await token({ tenant: 'acme' }, { kid: 'k2', key: strangerKey })}`,
    ],
    ['an HS256 token keyed with the public key', async () => `Bearer ${await algorithmConfusion()}`],
    ['an expired token', async () => `Bearer ${await token({ tenant: 'acme' }, { expires: now() - 120 })}`],
    [
      'a token that never expires (no exp)',
      async () => `Bearer ${await token({ tenant: 'acme' }, { expires: null })}`,
    ],
    [
      'a token minted to live ten years',
      async () => `Bearer ${await token({ tenant: 'acme' }, { expires: '3650d' })}`,
    ],
    [
      'a token not valid yet',
      async () => `Bearer ${await token({ tenant: 'acme' }, { notBefore: now() + 3600 })}`,
    ],
    [
      'a token from another issuer',
      async () => `Bearer ${await token({ tenant: 'acme' }, { issuer: 'https://evil.test' })}`,
    ],
    [
      'a token for another audience',
      async () => `Bearer ${await token({ tenant: 'acme' }, { audience: 'other' })}`,
    ],
    ['a token without a tenant claim', async () => `Bearer ${await token({})}`],
    [
      'a token without a subject',
      async () => `Bearer ${await token({ tenant: 'acme' }, { subject: undefined })}`,
    ],
    ['a token for a tenant that does not exist', async () => `Bearer ${await token({ tenant: 'nobody' })}`],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await token({ tenant: 'globex' })).split('.');
        return `Bearer ${header}.${b64({ tenant: 'acme', sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })}.${signature}`;
      },
    ],
  ])('%s is 401 everywhere and changes nothing', async (_what, authorization) => {
    await everyRoute(routes(), { Authorization: await authorization() }, expectUnauthenticated);
  });

  it('a valid token of another tenant is answered like a missing agent (404) everywhere', async () => {
    const globex = { Authorization: `Bearer ${await token({ tenant: 'globex' }, { subject: 'carol' })}` };
    await everyRoute(routes(), globex, (reply, route) => {
      expect(reply.status, route.name).toBe(404);
      expect(reply.text).toContain('TASK_NOT_FOUND');
    });
  });

  it("a valid token of another principal sees none of alice's task or config", async () => {
    const bob = { Authorization: `Bearer ${await token({ tenant: 'acme' }, { subject: 'bob' })}` };
    const touching = routes().filter(
      (r) => r.path.includes(taskId) || JSON.stringify(r.body ?? {}).includes(taskId),
    );
    expect(touching.length).toBeGreaterThan(10);
    await everyRoute(touching, bob, (reply, route) => {
      expect(reply.text, route.name).toContain('TASK_NOT_FOUND');
    });
  });
});

describe('operator routes refuse JWTs', () => {
  it('even a tenant-admin token with every claim is 401 on every admin and dashboard route', async () => {
    const jwt = await token({
      tenant: 'acme',
      switchyard_role: 'tenant_admin',
      admin: true,
      roles: ['admin'],
    });
    await everyRoute(
      adminRoutes('acme', h.fixtures.keyIds.alice, taskId),
      { Authorization: `Bearer ${jwt}` },
      (reply, route) => {
        expect(reply.status, route.name).toBe(401);
      },
    );
  });
});

describe('rate limits of JWT callers', () => {
  it("one tenant's subject does not spend the budget of the same subject in another tenant", async () => {
    const limited = await h.startGateway({
      JWT_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      RATE_LIMIT_KEY_PER_SEC: '3',
    });
    const acme = { Authorization: `Bearer ${await token({ tenant: 'acme' }, { subject: 'shared-name' })}` };
    const globex = {
      Authorization: `Bearer ${await token({ tenant: 'globex' }, { subject: 'shared-name' })}`,
    };
    const list = (tenant: string, headers: Record<string, string>) =>
      send('GET', `${limited.url}/agents/${tenant}/echo/rest/tasks`, { headers });
    // Fill acme's budget until refused, then ask for globex at once; a rolled-over second just repeats.
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      let refused = false;
      for (let i = 0; i < 200 && !refused; i++) refused = (await list('acme', acme)).status === 429;
      expect(refused).toBe(true);
      status = (await list('globex', globex)).status;
    }
    expect(status).toBe(200);
  });
});
