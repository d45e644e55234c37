import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@switchyard/testing';
import { startHarness, type Harness, type RunningGateway } from '../support/harness.ts';
import { userMessage } from '../support/messages.ts';

// README "Limits": blocking SendMessage calls waiting at once, per tenant and per principal, on
// each gateway process. Past a limit a blocking send is 429 with Retry-After and creates nothing;
// returnImmediately sends are not counted.
let h: Harness;
let limited: RunningGateway;
const waiting: AbortController[] = [];

beforeAll(async () => {
  h = await startHarness({ worker: false }); // nothing runs: every blocking send waits
  limited = await h.startGateway({
    BLOCKING_MAX_WAITS: '3',
    BLOCKING_MAX_WAITS_PER_TENANT: '2',
    BLOCKING_MAX_WAITS_PER_PRINCIPAL: '1',
  });
});
afterAll(async () => {
  for (const c of waiting) c.abort();
  await h?.stop();
});

/** A blocking SendMessage over HTTP+JSON; the returned promise settles with the response. */
function send(tenant: string, key: string, configuration?: Record<string, unknown>) {
  const controller = new AbortController();
  waiting.push(controller);
  const done = fetch(`${limited.url}/agents/${tenant}/echo/rest/message:send`, {
    method: 'POST',
    headers: { 'A2A-Version': '1.0', 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({
      message: userMessage('wait for me'),
      ...(configuration ? { configuration } : {}),
    }),
    signal: controller.signal,
  }).catch(() => null);
  return { controller, done };
}

const taskCount = async () =>
  Number((await h.db.pool.query<{ n: string }>('select count(*) as n from tasks')).rows[0]?.n);

describe('blocking sends waiting at once', () => {
  it('are refused past the per-principal, per-tenant and per-gateway limits, creating nothing, and counted out when they end', async () => {
    const { alice, bob, boss, carol } = h.fixtures.keys;
    const first = send('acme', alice);
    await waitFor(async () => (await taskCount()) === 1, { what: "alice's first task" });
    const before = await taskCount();
    const again = await send('acme', alice).done;
    expect(again?.status).toBe(429);
    expect(Number(again?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await again!.json()) as { error: { message: string } }).error.message).toMatch(/blocking/);
    expect(await taskCount()).toBe(before);

    // Not counted: a send that does not wait.
    const immediate = await send('acme', alice, { returnImmediately: true }).done;
    expect(immediate?.status).toBe(200);

    send('acme', bob); // the tenant's second waiting send
    await waitFor(async () => (await taskCount()) === before + 2, { what: "bob's task" });
    const overTenant = await send('acme', boss).done;
    expect(overTenant?.status).toBe(429);
    // Another tenant's sends are its own.
    send('globex', carol);
    await waitFor(async () => (await taskCount()) === before + 3, { what: "carol's task" });
    // But the gateway's own limit counts them all: its fourth waiting send is refused, creating
    // nothing, even from a caller under its tenant's and its own limits.
    const dan = (await h.admin.createApiKey({ tenantId: 'globex', principal: 'dan', role: 'user' }))
      .plaintext;
    const overGateway = await send('globex', dan).done;
    expect(overGateway?.status).toBe(429);
    expect(((await overGateway!.json()) as { error: { message: string } }).error.message).toMatch(
      /gateway holds its maximum of blocking sends/,
    );
    expect(await taskCount()).toBe(before + 3);

    // A waiting send that ends (the client left) gives its place back.
    first.controller.abort();
    await waitFor(
      async () => {
        const retried = send('acme', alice);
        const early = await Promise.race([
          retried.done,
          new Promise((r) => setTimeout(() => r('waiting'), 300)),
        ]);
        return early === 'waiting';
      },
      { what: "alice's place to be free again" },
    );
  });
});
