import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent } from '@switchyard/agents';
import { PARKED_RELEASE_AFTER_MS } from '@switchyard/engine';
import { JOB_NAMES, TaskQueue } from '@switchyard/queue';
import { createDb, PostgresOutboxStore } from '@switchyard/store';
import { waitFor } from '@switchyard/testing';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';
import { openSse, send, type HttpReply, type RequestOptions } from './support/http.ts';
import { taskOf, userMessage } from './support/messages.ts';

// The operator API under /admin/v1 (README.md), and the ops endpoints.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false, env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
});
afterAll(async () => {
  await h?.stop();
});

const admin = (method: string, path: string, options: RequestOptions = {}): Promise<HttpReply> =>
  send(method, `${h.url}/admin/v1${path}`, {
    noVersion: true,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    ...options,
  });
const echoCard = { ...echoAgent.card };

describe('admin authentication', () => {
  it('needs the admin bearer token (401 google.rpc.Status otherwise)', async () => {
    const none = await send('GET', `${h.url}/admin/v1/tenants`, { noVersion: true });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect(none.body).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    const wrong = await send('GET', `${h.url}/admin/v1/tenants`, {
      noVersion: true,
      headers: { Authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
  });

  it('unknown admin routes are 404', async () => {
    expect((await admin('GET', '/nothing')).status).toBe(404);
  });
});

describe('tenants', () => {
  it('creates a tenant with a webhook secret, refuses a duplicate and a bad id, and lists it', async () => {
    const created = await admin('POST', '/tenants', { body: { id: 'initech', name: 'Initech' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      tenant: { id: 'initech', name: 'Initech' },
      webhookSecret: expect.stringMatching(/^whsec_/),
    });
    expect((await admin('POST', '/tenants', { body: { id: 'initech', name: 'Again' } })).status).toBe(409);
    const bad = await admin('POST', '/tenants', { body: { id: 'Not A Slug', name: '' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('fieldViolations');
    // Found in review: a tenant `tasks` could not be told from the REST routes without a tenant
    // (GET /rest/tasks/tasks was GetTask of a task `tasks`), so it cannot be created.
    const reserved = await admin('POST', '/tenants', { body: { id: 'tasks', name: 'Tasks' } });
    expect(reserved.status).toBe(400);
    expect(JSON.stringify(reserved.body)).toContain('REST route name');
    const listed = await admin('GET', '/tenants');
    expect((listed.body as { tenants: Array<{ id: string }> }).tenants.map((t) => t.id)).toEqual(
      expect.arrayContaining(['acme', 'globex', 'initech']),
    );
  });

  it("sets a tenant's cap on runs at once, refuses a bad one and changes nothing, and clears it", async () => {
    const set = await admin('PATCH', '/tenants/globex', { body: { maxRunning: 3 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: 'globex', maxRunning: 3 });
    for (const body of [
      { maxRunning: -1 },
      { maxRunning: 1.5 },
      { maxRunning: '3' },
      {},
      { maxRunning: 2, x: 1 },
    ]) {
      const bad = await admin('PATCH', '/tenants/globex', { body });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('fieldViolations');
    }
    expect(await h.admin.getTenant('globex')).toMatchObject({ maxRunning: 3 });
    expect((await admin('PATCH', '/tenants/nobody', { body: { maxRunning: 1 } })).status).toBe(404);
    const listed = await admin('GET', '/tenants');
    expect((listed.body as { tenants: Array<{ id: string }> }).tenants).toContainEqual(
      expect.objectContaining({ id: 'globex', maxRunning: 3 }),
    );
    // null: back to the fleet's TENANT_MAX_RUNNING; 0: no cap at all for this tenant.
    expect((await admin('PATCH', '/tenants/globex', { body: { maxRunning: 0 } })).body).toMatchObject({
      maxRunning: 0,
    });
    expect((await admin('PATCH', '/tenants/globex', { body: { maxRunning: null } })).body).toMatchObject({
      maxRunning: null,
    });
  });

  it('brings the runs parked under the old cap back once workers know the new one', async () => {
    // A run parked by a worker under globex's cap: a delayed job, noted in the tenant's parked set.
    const queue = new TaskQueue({ connection: h.redis.connect(), keys: h.keys });
    try {
      await queue.queue.add(
        JOB_NAMES.runTask,
        { tenantId: 'globex', taskId: 'parked-1' },
        {
          jobId: 'parked-1',
          delay: 60_000,
        },
      );
      await h.redis.connect().zadd(h.keys.tenantParkedRuns('globex'), Date.now(), 'parked-1');
      expect((await admin('PATCH', '/tenants/globex', { body: { maxRunning: 5 } })).status).toBe(200);
      const job = await queue.queue.getJob('parked-1');
      expect(job?.delay).toBe(PARKED_RELEASE_AFTER_MS);
      expect(await job?.isDelayed()).toBe(true);
    } finally {
      await queue.close();
    }
  });

  it('rotates the webhook secret', async () => {
    const rotated = await admin('POST', '/tenants/acme/webhook-secret:rotate');
    expect(rotated.body).toEqual({ webhookSecret: expect.stringMatching(/^whsec_/) });
    expect((await admin('POST', '/tenants/nobody/webhook-secret:rotate')).status).toBe(404);
  });
});

describe('agents', () => {
  it('registers an agent whose card is then served, lists and deletes agents', async () => {
    const put = await admin('PUT', '/tenants/acme/agents/parrot', {
      body: { card: echoCard, executor: 'echo', settings: {} },
    });
    expect(put.status).toBe(200);
    const urls = (put.body as { urls: { card: string; jsonRpc: string; rest: string } }).urls;
    expect(urls.jsonRpc).toBe(`${h.url}/agents/acme/parrot/rpc`);
    const card = await send('GET', urls.card, { noVersion: true });
    expect(card.body).toMatchObject({ name: 'Echo' });
    const listed = await admin('GET', '/tenants/acme/agents');
    expect((listed.body as { agents: Array<{ id: string }> }).agents.map((a) => a.id)).toContain('parrot');
    await admin('PUT', '/tenants/acme/agents/ephemeral', { body: { card: echoCard, executor: 'echo' } });
    expect((await admin('DELETE', '/tenants/acme/agents/ephemeral')).body).toEqual({});
    expect(
      (await send('GET', `${h.url}/agents/acme/ephemeral/.well-known/agent-card.json`, { noVersion: true }))
        .status,
    ).toBe(404);
    expect((await admin('DELETE', '/tenants/acme/agents/ephemeral')).status).toBe(404);
  });

  // Found in review: a skill could require a scheme the card does not declare (§2.5), and two
  // skills could share an id in the extended card.
  it('keeps only skill security requirements the card can meet, and one skill per id', async () => {
    const skill = (id: string, schemes: string[][]) => ({
      id,
      name: id,
      description: id,
      tags: [],
      securityRequirements: schemes.map((names) => ({
        schemes: Object.fromEntries(names.map((n) => [n, { list: [] }])),
      })),
    });
    const put = await admin('PUT', '/tenants/acme/agents/guarded', {
      body: {
        card: {
          ...echoCard,
          skills: [
            skill('mixed', [['apiKey'], ['oauth'], ['apiKey', 'oauth']]),
            skill('unmet', [['bearer']]),
          ],
        },
        executor: 'echo',
      },
    });
    expect(put.status).toBe(200);
    const card = (await send('GET', `${h.url}/agents/acme/guarded/.well-known/agent-card.json`)).body as {
      skills: Array<{ id: string; securityRequirements?: unknown }>;
    };
    expect(card.skills).toEqual([
      expect.objectContaining({ id: 'mixed', securityRequirements: [{ schemes: { apiKey: { list: [] } } }] }),
      expect.not.objectContaining({ securityRequirements: expect.anything() }),
    ]);
    const twice = await admin('PUT', '/tenants/acme/agents/twice', {
      body: {
        card: { ...echoCard, skills: [skill('s', [])], extendedSkills: [skill('s', [])] },
        executor: 'echo',
      },
    });
    expect(twice.status).toBe(400);
    expect(JSON.stringify(twice.body)).toContain('skill id s is used twice');
  });

  it('refuses an executor that is not bundled, an incomplete card and an unknown tenant', async () => {
    const executor = await admin('PUT', '/tenants/acme/agents/x', {
      body: { card: echoCard, executor: 'rm-rf' },
    });
    expect(executor.status).toBe(400);
    expect(JSON.stringify(executor.body)).toContain('executor');
    const { description: _dropped, ...incomplete } = echoCard;
    const card = await admin('PUT', '/tenants/acme/agents/x', {
      body: { card: incomplete, executor: 'echo' },
    });
    expect(card.status).toBe(400);
    expect(JSON.stringify(card.body)).toContain('card.description');
    expect(
      (await admin('PUT', '/tenants/nobody/agents/x', { body: { card: echoCard, executor: 'echo' } })).status,
    ).toBe(404);
    expect(
      (await admin('PUT', '/tenants/acme/agents/Bad_Id', { body: { card: echoCard, executor: 'echo' } }))
        .status,
    ).toBe(400);
  });
});

describe('API keys', () => {
  it('issues a key shown once, lists keys without secrets, rotates and revokes', async () => {
    const created = await admin('POST', '/tenants/acme/api-keys', {
      body: { principal: 'dave', role: 'user', description: 'ci' },
    });
    expect(created.status).toBe(201);
    const { key, plaintext } = created.body as {
      key: { id: string; principal: string; role: string };
      plaintext: string;
    };
    expect(key).toMatchObject({ principal: 'dave', role: 'user' });
    const tasksUrl = `${h.url}/agents/acme/echo/rest/tasks`;
    expect((await send('GET', tasksUrl, { key: plaintext })).status).toBe(200);
    const listed = await admin('GET', '/tenants/acme/api-keys');
    expect(listed.text).not.toContain(plaintext);
    expect((listed.body as { keys: Array<{ id: string }> }).keys.map((k) => k.id)).toContain(key.id);
    const rotated = await admin('POST', `/tenants/acme/api-keys/${key.id}:rotate`);
    const fresh = rotated.body as { plaintext: string; key: { id: string } };
    expect(fresh.plaintext).not.toBe(plaintext);
    expect((await send('GET', tasksUrl, { key: plaintext })).status).toBe(401);
    expect((await admin('DELETE', `/tenants/acme/api-keys/${fresh.key.id}`)).body).toEqual({});
    expect((await send('GET', tasksUrl, { key: fresh.plaintext })).status).toBe(401);
    expect(
      (await admin('DELETE', '/tenants/acme/api-keys/00000000-0000-0000-0000-000000000000')).status,
    ).toBe(404);
    expect(
      (await admin('POST', '/tenants/acme/api-keys', { body: { principal: 'eve', role: 'root' } })).status,
    ).toBe(400);
    // No role: the least a key can see, as the CLI's --role defaults to.
    const plain = await admin('POST', '/tenants/acme/api-keys', { body: { principal: 'frank' } });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ key: { principal: 'frank', role: 'user' } });
  });
});

describe('revocation and open streams', () => {
  it('revoking a key ends the streams it opened (a stream outlives its request)', async () => {
    const created = await admin('POST', '/tenants/acme/api-keys', {
      body: { principal: 'alice', role: 'user' },
    });
    const { key, plaintext } = created.body as { key: { id: string }; plaintext: string };
    const sent = await send('POST', `${h.url}/agents/acme/echo/rest/message:send`, {
      key: plaintext,
      body: { message: userMessage('held open'), configuration: { returnImmediately: true } },
    });
    const taskId = taskOf(sent.body as { task: never }).id;
    let opened = false;
    const stream = openSse('GET', `${h.url}/agents/acme/echo/rest/tasks/${taskId}:subscribe`, {
      key: plaintext,
      onEvent: () => (opened = true),
    });
    // Another credential's stream of the same task stays open.
    let otherOpened = false;
    const other = openSse('GET', `${h.url}/agents/acme/echo/rest/tasks/${taskId}:subscribe`, {
      key: h.fixtures.keys.alice,
      onEvent: () => (otherOpened = true),
      stopAfter: 2,
    });
    await waitFor(() => opened && otherOpened, { what: 'both streams open' });
    expect((await admin('DELETE', `/tenants/acme/api-keys/${key.id}`)).status).toBe(200);
    const ended = await stream;
    expect(ended.comments).toContain('credential revoked');
    await send('POST', `${h.url}/agents/acme/echo/rest/tasks/${taskId}:cancel`, {
      key: h.fixtures.keys.alice,
    });
    expect((await other).events.map((e) => e.id)).toEqual(['1', '2']);
  });
});

describe('dead letters', () => {
  it('lists a dead delivery and replays it, singly and in bulk', async () => {
    const sent = await send('POST', `${h.url}/agents/acme/sleepy/rest/message:send`, {
      key: h.fixtures.keys.alice,
      body: {
        message: userMessage('doomed webhook'),
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: { url: 'http://127.0.0.1:9/dead' },
        },
      },
    });
    const taskId = taskOf(sent.body as { task: never }).id;
    await send('POST', `${h.url}/agents/acme/sleepy/rest/tasks/${taskId}:cancel`, {
      key: h.fixtures.keys.alice,
    });
    const outbox = new PostgresOutboxStore({ db: createDb(h.db.pool), secrets: h.secrets });
    // Play a pusher whose every attempt fails for good: claim and bury until nothing is due
    // (deliveries of one task are claimed one at a time, in order).
    let dead = 0;
    await waitFor(async () => {
      const batch = await outbox.claimDueDeliveries({ workerId: 'test', limit: 10, lockMs: 60_000 });
      for (const d of batch) {
        await outbox.markFailed({
          tenantId: d.tenantId,
          taskId: d.taskId,
          configId: d.configId,
          seq: d.seq,
          workerId: 'test',
          error: 'refused',
          dead: true,
        });
      }
      dead += batch.length;
      return dead >= 2 && batch.length === 0;
    });
    const listed = await admin('GET', '/tenants/acme/dead-letters?limit=1');
    const page = listed.body as {
      deadLetters: Array<{ taskId: string; configId: string; seq: number }>;
      nextCursor: string | null;
    };
    expect(page.deadLetters).toHaveLength(1);
    const first = page.deadLetters[0];
    if (!first) throw new Error('no dead letter');
    expect(first.taskId).toBe(taskId);
    const one = await admin(
      'POST',
      `/tenants/acme/dead-letters/${first.taskId}/${first.configId}/${first.seq}:replay`,
    );
    expect(one.body).toEqual({ replayed: 1 });
    expect(
      (
        await admin(
          'POST',
          `/tenants/acme/dead-letters/${first.taskId}/${first.configId}/${first.seq}:replay`,
        )
      ).status,
    ).toBe(404);
    const all = await admin('POST', '/tenants/acme/dead-letters:replay');
    expect(all.body).toEqual({ replayed: dead - 1 });
    expect((await admin('GET', '/tenants/acme/dead-letters')).body).toEqual({
      deadLetters: [],
      nextCursor: null,
    });
  });

  it('refuses malformed keys and cursors', async () => {
    expect((await admin('POST', '/tenants/acme/dead-letters/not-a-uuid/c/1:replay')).status).toBe(400);
    expect((await admin('GET', '/tenants/acme/dead-letters?cursor=garbage')).status).toBe(400);
  });
});

describe('ops endpoints', () => {
  it('healthz, readyz and metrics answer without credentials', async () => {
    expect((await send('GET', `${h.url}/healthz`, { noVersion: true })).status).toBe(200);
    const ready = await send('GET', `${h.url}/readyz`, { noVersion: true });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { postgres: true, migrations: true, redis: true, accepting: true },
    });
    const metrics = await send('GET', `${h.url}/metrics`, { noVersion: true });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
  });

  it('with GATEWAY_OPS_PORT, /metrics is served on that port only; the probes stay on both', async () => {
    const { gateway, url, stop } = await h.startGateway({ GATEWAY_OPS_PORT: '0' });
    try {
      const opsUrl = `http://127.0.0.1:${gateway.opsPort()}`;
      expect((await send('GET', `${url}/metrics`, { noVersion: true })).status).toBe(404);
      const metrics = await send('GET', `${opsUrl}/metrics`, { noVersion: true });
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      for (const base of [url, opsUrl]) {
        expect((await send('GET', `${base}/healthz`, { noVersion: true })).status).toBe(200);
        expect((await send('GET', `${base}/readyz`, { noVersion: true })).status).toBe(200);
      }
    } finally {
      await stop();
    }
    expect(gateway.opsPort()).toBeUndefined();
  });

  it('refuses a GATEWAY_OPS_PORT that is no port, naming it', async () => {
    await expect(h.startGateway({ GATEWAY_OPS_PORT: '80a' })).rejects.toThrow(/GATEWAY_OPS_PORT/);
  });
});

describe('disabling a tenant', () => {
  it('refuses every credential of the tenant at once, keeps its data, and enable restores access', async () => {
    const list = () => send('GET', `${h.url}/agents/globex/echo/rest/tasks`, { key: h.fixtures.keys.carol });
    expect((await list()).status).toBe(200);
    expect((await admin('POST', '/tenants/globex:disable')).status).toBe(200);
    // Published on the revocation channel: the cached key is dropped without waiting for its TTL.
    await waitFor(async () => (await list()).status === 401, { timeoutMs: 5000, what: 'the key refused' });
    expect((await admin('POST', '/tenants/globex:enable')).status).toBe(200);
    await waitFor(async () => (await list()).status === 200, {
      timeoutMs: 5000,
      what: 'the key accepted again',
    });
    expect((await admin('POST', '/tenants/no-such-tenant:disable')).status).toBe(404);
  });
});
