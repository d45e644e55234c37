import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@switchyard/protocol';
import { createSecretBox } from '@switchyard/store';
import { waitFor } from '@switchyard/testing';
import {
  HOPS_METADATA_KEY,
  LOOP_MESSAGE,
  MAX_HOPS,
  TOO_MANY_HOPS_MESSAGE,
  UPSTREAM_EXECUTOR,
} from '@switchyard/upstream';
import { AdminError } from '../src/admin/admin-error.ts';
import { upstreamRegistration } from '../src/admin/upstream-registration.ts';
import { A2ATestClient } from './support/a2a-client.ts';
import { ADMIN_TOKEN, startHarness, type Harness, type RunningGateway } from './support/harness.ts';
import { partsText, taskOf, userMessage } from './support/messages.ts';
import {
  loopbackUpstreamAgent,
  startUpstreamServer,
  type UpstreamServer,
} from './support/upstream-server.ts';

// Found in audit: an a2a-upstream agent whose upstream is this platform (its own card, or A→B→A
// through two agents of two tenants) made every run start a new run of itself: 8 tasks held all 8
// worker slots within 12 s and every tenant's work stalled until the run timeout. The worker's
// loop guard ends such a chain after one turn of the loop; the registration refuses the platform's
// own URL outright.
const { findAgent } = loopbackUpstreamAgent({ pollMinMs: 50, pollMaxMs: 200 });

let h: Harness;
/** A second gateway on the same database: the platform under another name (its own PUBLIC_URL). */
let alias: RunningGateway;
let sdk: UpstreamServer;

beforeAll(async () => {
  h = await startHarness({
    env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
    findAgent,
    workerEngine: { maxAttempts: 2, retryBaseMs: 20, retryMaxMs: 50 },
  });
  alias = await h.startGateway();
  sdk = await startUpstreamServer();
});
afterAll(async () => {
  await sdk?.stop();
  await h?.stop();
});

async function register(tenant: string, agentId: string, settings: Record<string, unknown>) {
  const res = await fetch(`${h.url}/admin/v1/tenants/${tenant}/agents/${agentId}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ executor: UPSTREAM_EXECUTOR, settings }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

const cardOn = (gateway: { url: string }, tenant: string, agentId: string) =>
  `${gateway.url}/agents/${tenant}/${agentId}/.well-known/agent-card.json`;
const apiKey = (value: string) => ({ scheme: 'header', name: 'X-API-Key', value });

async function failedTask(agentPath: string, key: string): Promise<Task> {
  const client = new A2ATestClient('jsonrpc', `${h.url}/agents/${agentPath}`, key);
  const sent = await client.call('SendMessage', {
    message: userMessage('post 3'),
    configuration: { returnImmediately: true },
  });
  if (!sent.ok) throw new Error(sent.message);
  const id = taskOf(sent.value).id;
  return waitFor(
    async () => {
      const got = await client.call('GetTask', { id });
      return got.ok && got.value.status.state === TaskState.FAILED ? got.value : null;
    },
    { what: 'the looping task to fail', timeoutMs: 20_000 },
  );
}

async function tasksOf(tenant: string, agentId: string): Promise<number> {
  const { rows } = await h.db.pool.query<{ n: string }>(
    'select count(*) as n from tasks where tenant_id = $1 and agent_id = $2',
    [tenant, agentId],
  );
  return Number(rows[0]?.n);
}

describe('an a2a-upstream agent whose upstream leads back to itself', () => {
  it('fails after one turn of the loop when its upstream is its own card', async () => {
    // It must exist (with some upstream) before it can be its own upstream.
    await register('acme', 'self', { cardUrl: sdk.cardUrl });
    await register('acme', 'self', {
      cardUrl: cardOn(alias, 'acme', 'self'),
      credentials: apiKey(h.fixtures.keys.alice),
    });
    const failed = await failedTask('acme/self', h.fixtures.keys.alice);
    expect(partsText(failed.status.message?.parts)).toBe(LOOP_MESSAGE);
    // Ours and the one it forwarded to, whose run refused: nothing ran on.
    expect(await tasksOf('acme', 'self')).toBe(2);
  });

  it('fails after one turn of a loop through two agents of two tenants', async () => {
    await register('acme', 'a', { cardUrl: sdk.cardUrl });
    await register('globex', 'b', {
      cardUrl: cardOn(alias, 'acme', 'a'),
      credentials: apiKey(h.fixtures.keys.alice),
    });
    await register('acme', 'a', {
      cardUrl: cardOn(alias, 'globex', 'b'),
      credentials: apiKey(h.fixtures.keys.carol),
    });
    const failed = await failedTask('acme/a', h.fixtures.keys.alice);
    // The refusal travels back up the chain as each run's upstream task fails.
    expect(partsText(failed.status.message?.parts)).toBe(LOOP_MESSAGE);
    expect(await tasksOf('acme', 'a')).toBe(2);
    expect(await tasksOf('globex', 'b')).toBe(1);
    // The worker is free again: other work runs at once.
    const echo = new A2ATestClient('jsonrpc', `${h.url}/agents/acme/echo`, h.fixtures.keys.alice);
    const answered = await echo.call('SendMessage', { message: userMessage('still here') });
    expect(answered.ok).toBe(true);
  });
});

describe('a request that says it has been forwarded too often', () => {
  // A loop through agents that drop the message's metadata (not Switchyard) keeps only the header.
  it.each(['jsonrpc', 'rest'] as const)('is refused before it creates a task (%s)', async (binding) => {
    const client = new A2ATestClient(binding, `${h.url}/agents/acme/echo`, h.fixtures.keys.alice);
    const before = await tasksOf('acme', 'echo');
    const send = (hops: string) =>
      client.call(
        'SendMessage',
        { message: userMessage('hop') },
        { headers: { 'Switchyard-Hop-Count': hops } },
      );
    const refused = await send(String(MAX_HOPS + 1));
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.reason).toBe('INVALID_REQUEST');
    expect(refused.message).toBe(TOO_MANY_HOPS_MESSAGE);
    expect(await tasksOf('acme', 'echo')).toBe(before);
    // The last hop allowed, and a header that is not a count, are served.
    const last = await send(String(MAX_HOPS));
    expect(last.ok).toBe(true);
    expect((await send('many')).ok).toBe(true);
    expect(await tasksOf('acme', 'echo')).toBe(before + 2);
    // Found in review: the header's count was checked and then forgotten, so a run forwarding the
    // message again sent a count of 1. The stored message counts the hops the header says it made,
    // and its run would refuse to forward it (nextHop).
    if (!last.ok) return;
    const stored = await client.call('GetTask', { id: taskOf(last.value).id, historyLength: 1 });
    if (!stored.ok) throw new Error(stored.message);
    expect(stored.value.history?.[0]?.metadata?.[HOPS_METADATA_KEY]).toEqual({ count: MAX_HOPS, via: [] });
  });
});

describe('registering an upstream that is this platform', () => {
  const deps = {
    secrets: createSecretBox('test-secret-key-0123456789'),
    urlPolicy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
  };
  const refusal = async (cardUrl: string, publicUrl: string) => {
    const err = await upstreamRegistration(
      { executor: UPSTREAM_EXECUTOR, settings: { cardUrl } },
      deps,
      publicUrl,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AdminError);
    return err as AdminError;
  };

  it('is refused by the admin API', async () => {
    const res = await fetch(`${h.url}/admin/v1/tenants/acme/agents/mirror`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ executor: UPSTREAM_EXECUTOR, settings: { cardUrl: cardOn(h, 'acme', 'echo') } }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('the upstream agent is this platform itself');
  });

  it('is refused when the card URL is under PUBLIC_URL, before anything is fetched', async () => {
    const err = await refusal(cardOn(h, 'acme', 'echo'), h.url);
    expect(err.status).toBe(400);
    expect(err.message).toContain(
      `the upstream agent is this platform itself: its card URL is under its own URL (${h.url})`,
    );
    expect(err.fieldViolations[0]?.field).toBe('settings.cardUrl');
    // Origins compare as URLs (case, default port), and a PUBLIC_URL with a path covers only it.
    await refusal(
      'HTTPS://Switchyard.Example:443/agents/a/b/.well-known/agent-card.json',
      'https://switchyard.example',
    );
    await refusal('https://example.com/sy/agents/a/b/card.json', 'https://example.com/sy/');
    await refusal('https://example.com/sy/.well-known/agent-card.json', 'https://example.com/sy');
    // Another service behind the same host (an ingress routing /ledger elsewhere) is not the
    // platform: only its own agent and card routes are refused.
    const card = await (await fetch(sdk.cardUrl)).text();
    const ledger = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(card),
    );
    await new Promise<void>((resolve) => ledger.listen(0, '127.0.0.1', resolve));
    const host = `http://127.0.0.1:${(ledger.address() as AddressInfo).port}`;
    try {
      await expect(
        upstreamRegistration(
          { executor: UPSTREAM_EXECUTOR, settings: { cardUrl: `${host}/ledger/agent-card.json` } },
          deps,
          host,
        ),
      ).resolves.toMatchObject({ executor: UPSTREAM_EXECUTOR });
    } finally {
      ledger.close();
    }
    await expect(
      upstreamRegistration(
        { executor: UPSTREAM_EXECUTOR, settings: { cardUrl: sdk.cardUrl } },
        deps,
        'https://example.com/sy',
      ),
    ).resolves.toMatchObject({ executor: UPSTREAM_EXECUTOR });
  });

  it('is refused when the card, served elsewhere, names an interface under PUBLIC_URL', async () => {
    // Our own card for acme/echo, copied to another host: calling it would call us.
    const ours = await (await fetch(cardOn(h, 'acme', 'echo'))).text();
    const server = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(ours),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const copy = `http://127.0.0.1:${(server.address() as AddressInfo).port}/card.json`;
    try {
      const err = await refusal(copy, h.url);
      expect(err.message).toContain(
        `the upstream agent is this platform itself: the interface its card names (${h.url}/agents/acme/echo/`,
      );
      // Seen from another PUBLIC_URL, the same card is another platform's.
      await expect(
        upstreamRegistration({ executor: UPSTREAM_EXECUTOR, settings: { cardUrl: copy } }, deps, alias.url),
      ).resolves.toMatchObject({ executor: UPSTREAM_EXECUTOR });
    } finally {
      server.close();
    }
  });
});
