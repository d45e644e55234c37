import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2ATestClient, failure, type BindingName, type Failure } from './support/a2a-client.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';
import { send } from './support/http.ts';
import { taskOf, userMessage } from './support/messages.ts';

// Digest §9: every request authenticated (rule 2), and nobody sees another principal's or
// tenant's tasks (rule 4, ARCHITECTURE.md §3 rule 6): all of it reads as TaskNotFound.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
});
afterAll(async () => {
  await h?.stop();
});

const expectNotFound = (outcome: { ok: boolean }) => {
  expect(outcome.ok).toBe(false);
  expect((outcome as Failure).reason).toBe('TASK_NOT_FOUND');
};

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  const client = (key: string | undefined, agent = 'acme/echo') =>
    new A2ATestClient(binding, `${h.url}/agents/${agent}`, key);

  it('§9 rule 2: a request without credentials is 401 with WWW-Authenticate', async () => {
    const reply = await client(undefined).call('ListTasks', {});
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.status).toBe(401);
    expect(reply.reason).toBe('UNAUTHENTICATED');
    expect(reply.headers.get('www-authenticate')).toContain('ApiKey header="X-API-Key"');
    // The request's id (the client's first is 1), read from the body after the refusal.
    if (binding === 'jsonrpc')
      expect(reply.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { message: expect.any(String) } });
    else expect(reply.body).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });

  it('a body that is not JSON is 415 with or without credentials; a good one without is 401', async () => {
    const url = `${h.url}/agents/acme/echo/${binding === 'jsonrpc' ? 'rpc' : 'rest/message:send'}`;
    for (const key of [undefined, 'sy_not-a-real-key-at-all', h.fixtures.keys.alice]) {
      const reply = await send('POST', url, { key, raw: 'hello', headers: { 'Content-Type': 'text/plain' } });
      expect(reply.status).toBe(415);
      if (binding === 'jsonrpc') expect(reply.body).toMatchObject({ error: { code: -32005 } });
      else expect(reply.body).toMatchObject({ error: { code: 415 } });
    }
    const json = await send('POST', url, { raw: '{}', headers: { 'Content-Type': 'application/json' } });
    expect(json.status).toBe(401);
  });

  it('§9 rule 2: an unknown API key is 401', async () => {
    const reply = await client('sy_not-a-real-key-at-all').call('ListTasks', {});
    expect(!reply.ok && reply.status).toBe(401);
  });

  it("§9 rule 4: another tenant's agent answers like a missing one (404)", async () => {
    const reply = await client(h.fixtures.keys.carol, 'acme/echo').call('ListTasks', {});
    expect(!reply.ok && reply.status).toBe(404);
    const missing = await client(h.fixtures.keys.alice, 'acme/nobody').call('ListTasks', {});
    expect(!missing.ok && missing.status).toBe(404);
    // Word for word but the name the URL gave: it names the agent asked for, as a mistyped name
    // should read, and says nothing of whether it exists.
    const named = (body: unknown, agent: string) => JSON.stringify(body).replaceAll(agent, '<agent>');
    expect(named((missing as Failure).body, 'acme/nobody')).toBe(named((reply as Failure).body, 'acme/echo'));
    expect(JSON.stringify((missing as Failure).body)).toContain(
      'No agent acme/nobody is served to this caller',
    );
  });

  describe('§9 rule 4: isolation on every operation', () => {
    let done: string;
    let running: string;
    let configId: string;
    beforeAll(async () => {
      const alice = client(h.fixtures.keys.alice);
      const sent = await alice.call('SendMessage', { message: userMessage('alice only') });
      if (!sent.ok) throw new Error(sent.reason);
      done = taskOf(sent.value).id;
      const sleepy = client(h.fixtures.keys.alice, 'acme/sleepy');
      const started = await sleepy.call('SendMessage', {
        message: userMessage('zzz'),
        configuration: { returnImmediately: true },
      });
      if (!started.ok) throw new Error(started.reason);
      running = taskOf(started.value).id;
      const config = await sleepy.call('CreateTaskPushNotificationConfig', {
        taskId: running,
        url: 'http://127.0.0.1:9/alice',
      });
      if (!config.ok) throw new Error(config.reason);
      configId = config.value.id ?? '';
    });
    afterAll(async () => {
      await client(h.fixtures.keys.alice, 'acme/sleepy').call('CancelTask', { id: running });
    });

    it.each([
      ['another principal of the tenant', 'bob', 'acme'],
      ['a principal of another tenant through its own agent', 'carol', 'globex'],
    ] as const)('%s gets TaskNotFound everywhere', async (_who, name, tenant) => {
      const key = h.fixtures.keys[name];
      const echo = client(key, `${tenant}/echo`);
      const sleepy = tenant === 'acme' ? client(key, 'acme/sleepy') : echo;
      expectNotFound(await echo.call('GetTask', { id: done }));
      expectNotFound(await sleepy.call('GetTask', { id: running }));
      expectNotFound(await sleepy.call('CancelTask', { id: running }));
      expectNotFound(
        await sleepy.call('SendMessage', { message: userMessage('hijack', { taskId: running }) }),
      );
      expectNotFound(
        await sleepy.call('CreateTaskPushNotificationConfig', {
          taskId: running,
          url: 'http://127.0.0.1:9/evil',
        }),
      );
      expectNotFound(await sleepy.call('GetTaskPushNotificationConfig', { taskId: running, id: configId }));
      expectNotFound(await sleepy.call('ListTaskPushNotificationConfigs', { taskId: running }));
      expectNotFound(
        await sleepy.call('DeleteTaskPushNotificationConfig', { taskId: running, id: configId }),
      );
      expectNotFound(await sleepy.stream('SubscribeToTask', { id: running }));
      const listed = await sleepy.call('ListTasks', {});
      if (!listed.ok) throw new Error(listed.reason);
      expect(listed.value.tasks.map((t) => t.id)).not.toContain(running);
      // Nothing changed for the owner.
      const owner = client(h.fixtures.keys.alice, 'acme/sleepy');
      const configs = await owner.call('ListTaskPushNotificationConfigs', { taskId: running });
      expect(configs.ok && configs.value.configs?.map((c) => c.id)).toEqual([configId]);
      const still = await owner.call('GetTask', { id: running });
      expect(still.ok && still.value.status.state).not.toBe('TASK_STATE_CANCELED');
    });

    it('the same task through another agent of the tenant is TaskNotFound', async () => {
      expectNotFound(await client(h.fixtures.keys.alice, 'acme/booking').call('GetTask', { id: done }));
    });

    it("a tenant admin sees every principal's tasks of its tenant", async () => {
      const boss = client(h.fixtures.keys.boss);
      const got = await boss.call('GetTask', { id: done });
      expect(got.ok).toBe(true);
      const bobs = await client(h.fixtures.keys.bob).call('SendMessage', {
        message: userMessage('bob task'),
      });
      if (!bobs.ok) throw new Error(bobs.reason);
      const listed = await boss.call('ListTasks', { pageSize: 100 });
      if (!listed.ok) throw new Error(listed.reason);
      expect(listed.value.tasks.map((t) => t.id)).toEqual(
        expect.arrayContaining([done, taskOf(bobs.value).id]),
      );
      const own = await client(h.fixtures.keys.bob).call('ListTasks', { pageSize: 100 });
      expect(own.ok && own.value.tasks.map((t) => t.id)).not.toContain(done);
    });
  });
});

describe('JSON-RPC A2A-Version (digest §6)', () => {
  // Found in audit: HTTP+JSON checked the version before the credential and JSON-RPC after it, so
  // the TCK's raw version checks (which send no key) got Unauthenticated on JSON-RPC only.
  it('an unsupported version is VersionNotSupported with or without credentials, with the id', async () => {
    const url = `${h.url}/agents/acme/echo/rpc`;
    const body = { jsonrpc: '2.0', id: 'v99', method: 'GetTask', params: { id: 'x' } };
    for (const key of [undefined, h.fixtures.keys.alice]) {
      const reply = await send('POST', url, {
        key,
        body,
        noVersion: true,
        headers: { 'A2A-Version': '99.0' },
      });
      expect(reply.body).toMatchObject({ jsonrpc: '2.0', id: 'v99', error: { code: -32009 } });
    }
    expect((await send('POST', url, { body })).status).toBe(401);
  });
});

describe('HTTP+JSON A2A-Version (digest §6)', () => {
  it('an unsupported version is VersionNotSupported with or without credentials', async () => {
    const url = `${h.url}/agents/acme/echo/rest/tasks`;
    for (const key of [undefined, h.fixtures.keys.alice]) {
      const reply = await send('GET', url, { key, noVersion: true, headers: { 'A2A-Version': '99.0' } });
      expect(reply.status).toBe(400);
      expect(JSON.stringify(reply.body)).toContain('VERSION_NOT_SUPPORTED');
    }
    expect((await send('GET', url, {})).status).toBe(401);
  });
});

describe('REST /{tenant} routes (digest §2.6: a routing value, not an authority)', () => {
  it("a tenant segment other than the caller's is 404", async () => {
    const reply = await send('GET', `${h.url}/agents/acme/echo/rest/globex/tasks`, {
      key: h.fixtures.keys.alice,
    });
    expect(reply.status).toBe(404);
    const own = await send('GET', `${h.url}/agents/acme/echo/rest/acme/tasks`, {
      key: h.fixtures.keys.alice,
    });
    expect(own.status).toBe(200);
  });

  it("a JSON-RPC params.tenant other than the caller's is TaskNotFound", async () => {
    const reply = await send('POST', `${h.url}/agents/acme/echo/rpc`, {
      key: h.fixtures.keys.alice,
      body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { tenant: 'globex' } },
    });
    expect(reply.body).toMatchObject({ error: { code: -32001 } });
  });
});

describe('API key revocation (brief: refused at once on every replica)', () => {
  it('a key revoked through one gateway is refused by another at once', async () => {
    const replica = await h.startGateway();
    // Several rounds: "at once" must not depend on which socket a gateway happens to read first.
    for (let round = 0; round < 5; round++) {
      const issued = await h.admin.createApiKey({ tenantId: 'acme', principal: 'temp', role: 'user' });
      const onReplica = () =>
        send('GET', `${replica.url}/agents/acme/echo/rest/tasks`, { key: issued.plaintext });
      expect((await onReplica()).status).toBe(200);
      expect((await onReplica()).status).toBe(200); // now served from the replica's cache
      const revoked = await send('DELETE', `${h.url}/admin/v1/tenants/acme/api-keys/${issued.key.id}`, {
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(revoked.status).toBe(200);
      expect((await onReplica()).status).toBe(401);
      expect(
        (await send('GET', `${h.url}/agents/acme/echo/rest/tasks`, { key: issued.plaintext })).status,
      ).toBe(401);
    }
  });

  it('a rotated key stops working at once and its replacement works', async () => {
    const issued = await h.admin.createApiKey({ tenantId: 'acme', principal: 'rotating', role: 'user' });
    const url = `${h.url}/agents/acme/echo/rest/tasks`;
    expect((await send('GET', url, { key: issued.plaintext })).status).toBe(200);
    const rotated = await send('POST', `${h.url}/admin/v1/tenants/acme/api-keys/${issued.key.id}:rotate`, {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const fresh = (rotated.body as { plaintext: string }).plaintext;
    expect((await send('GET', url, { key: issued.plaintext })).status).toBe(401);
    expect((await send('GET', url, { key: fresh })).status).toBe(200);
  });
});

describe('rate limits (digest §9 rule 7)', () => {
  it.each<BindingName>(['jsonrpc', 'rest'])(
    '%s: over the per-key budget is 429 with Retry-After and ResourceExhausted',
    async (binding) => {
      const limited = await h.startGateway({ RATE_LIMIT_KEY_PER_SEC: '2' });
      const issued = await h.admin.createApiKey({
        tenantId: 'acme',
        principal: `busy-${binding}`,
        role: 'user',
      });
      const client = new A2ATestClient(binding, `${limited.url}/agents/acme/echo`, issued.plaintext);
      let refused: Failure | undefined;
      for (let i = 0; i < 50 && !refused; i++) {
        const reply = await client.call('GetTask', { id: randomUUID() });
        if (!reply.ok && reply.status === 429) refused = reply;
      }
      expect(refused).toBeDefined();
      expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused?.reason).toBe('RESOURCE_EXHAUSTED');
      if (binding === 'jsonrpc')
        expect(refused?.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      else expect(refused?.body).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    },
  );
});

describe('admin credentials are separate', () => {
  it('a tenant API key cannot call the admin API', async () => {
    const reply = await send('GET', `${h.url}/admin/v1/tenants`, {
      headers: { Authorization: `Bearer ${h.fixtures.keys.boss}` },
    });
    expect(reply.status).toBe(401);
    expect(failure(reply).reason).toBe('UNAUTHENTICATED');
  });
});
