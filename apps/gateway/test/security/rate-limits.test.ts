import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type RunningGateway } from '../support/harness.ts';
import { send, type HttpReply } from '../support/http.ts';
import { userMessage } from '../support/messages.ts';
import { snapshotStore } from './store-snapshot.ts';
import { expectWellFormedRestError, expectWellFormedRpc } from './well-formed.ts';

// Issue 8, security suite: rate limits (digest §9 rule 7; gateway README "Rate limits") are per
// tenant and per credential, shared by every replica through Redis, answered 429 + Retry-After,
// and a refused request stores nothing. Budgets are per second, so each check fills a budget until
// it is refused and asks the next question at once; a budget that rolled over in between is simply
// filled again (never a timed assertion).
let h: Harness;
/** Two replicas with a small per-credential budget. */
let keyLimited: [RunningGateway, RunningGateway];
/** Two replicas with a small per-tenant budget. */
let tenantLimited: [RunningGateway, RunningGateway];

beforeAll(async () => {
  h = await startHarness({ worker: false, env: { BLOCKING_TIMEOUT_MS: '0' } });
  const perKey = { RATE_LIMIT_KEY_PER_SEC: '3' };
  const perTenant = { RATE_LIMIT_TENANT_PER_SEC: '4' };
  keyLimited = [await h.startGateway(perKey), await h.startGateway(perKey)];
  tenantLimited = [await h.startGateway(perTenant), await h.startGateway(perTenant)];
});
afterAll(async () => {
  await h?.stop();
});

const list = (gateway: RunningGateway, key: string, tenant = 'acme') =>
  send('GET', `${gateway.url}/agents/${tenant}/echo/rest/tasks`, { key });

/** Calls until refused with 429 (at most `tries` times); returns the refusal. */
async function fillBudget(call: () => Promise<HttpReply>, tries = 200): Promise<HttpReply> {
  for (let i = 0; i < tries; i++) {
    const reply = await call();
    if (reply.status === 429) return reply;
    expect(reply.status).toBe(200);
  }
  throw new Error(`no 429 after ${tries} calls`);
}

/** Fills the budget with `fill`, then asks `probe` at once; retries when the second rolled over. */
async function rightAfterRefusal(
  fill: () => Promise<HttpReply>,
  probe: () => Promise<HttpReply>,
  expected: number,
): Promise<HttpReply> {
  let last: HttpReply | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    await fillBudget(fill);
    last = await probe();
    if (last.status === expected) return last;
    // The next try in a later window: replicas configured with other budgets (the per-key pair
    // has the default tenant budget) take larger allotments of a shared counter in this one.
    await new Promise((r) => setTimeout(r, 250));
  }
  return last as HttpReply;
}

async function issue(tenantId: string, principal: string): Promise<string> {
  return (await h.admin.createApiKey({ tenantId, principal, role: 'user' })).plaintext;
}

describe('per-credential budget', () => {
  it('is 429 with Retry-After and ResourceExhausted on both bindings', async () => {
    const key = await issue('acme', 'limited');
    const [gateway] = keyLimited;
    const rest = await fillBudget(() => list(gateway, key));
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectWellFormedRestError(rest);
    expect(rest.body).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    const rpc = await fillBudget(() =>
      send('POST', `${gateway.url}/agents/acme/echo/rpc`, {
        key,
        body: { jsonrpc: '2.0', id: 'r', method: 'GetTask', params: { id: randomUUID() } },
      }),
    );
    expect(Number(rpc.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectWellFormedRpc(rpc);
    // Refused before the handler reads the body (like a 401); the id is read from it afterwards.
    expect(rpc.body).toMatchObject({
      id: 'r',
      error: { code: -32000, data: [{ reason: 'RESOURCE_EXHAUSTED' }] },
    });
  });

  it('is shared by the replicas: a budget spent on one is refused by the other', async () => {
    const key = await issue('acme', 'two-replicas');
    const [a, b] = keyLimited;
    const refused = await rightAfterRefusal(
      () => list(a, key),
      () => list(b, key),
      429,
    );
    expect(refused.status).toBe(429);
  });

  it("does not spend another credential's budget, in the tenant or outside it", async () => {
    const spender = await issue('acme', 'spender');
    const neighbour = await issue('acme', 'neighbour');
    const [gateway] = keyLimited;
    const ok = await rightAfterRefusal(
      () => list(gateway, spender),
      () => list(gateway, neighbour),
      200,
    );
    expect(ok.status).toBe(200);
    const other = await rightAfterRefusal(
      () => list(gateway, spender),
      () => list(gateway, h.fixtures.keys.carol, 'globex'),
      200,
    );
    expect(other.status).toBe(200);
  });

  it('a refused SendMessage stores nothing', async () => {
    const key = await issue('acme', 'refused-sender');
    const [gateway] = keyLimited;
    for (let attempt = 0; attempt < 20; attempt++) {
      await fillBudget(() => list(gateway, key));
      const before = await snapshotStore(h.db.pool);
      const reply = await send('POST', `${gateway.url}/agents/acme/echo/rest/message:send`, {
        key,
        body: { message: userMessage('over budget'), configuration: { returnImmediately: true } },
      });
      if (reply.status !== 429) continue;
      expect(await snapshotStore(h.db.pool)).toEqual(before);
      return;
    }
    throw new Error('never saw a refused SendMessage');
  });
});

describe('per-tenant budget', () => {
  it("is shared by the tenant's credentials and replicas, and leaves other tenants alone", async () => {
    const first = await issue('acme', 'tenant-spender-1');
    const second = await issue('acme', 'tenant-spender-2');
    const [a, b] = tenantLimited;
    const refused = await rightAfterRefusal(
      () => list(a, first),
      () => list(b, second),
      429,
    );
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED' } });
    const globex = await rightAfterRefusal(
      () => list(a, first),
      () => list(b, h.fixtures.keys.carol, 'globex'),
      200,
    );
    expect(globex.status).toBe(200);
  });
});
