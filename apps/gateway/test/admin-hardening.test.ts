import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent } from '@switchyard/agents';
import { waitFor } from '@switchyard/testing';
import { ADMIN_TOKEN, startHarness, type Harness, type RunningGateway } from './support/harness.ts';
import { openSse, send, type HttpReply, type RequestOptions } from './support/http.ts';
import { taskOf, userMessage } from './support/messages.ts';

// The admin API's edges (README "Admin API"): ids as the gateways compare them, path and query
// parameters checked before the store sees them, strict bodies, one error domain, and agents that
// cannot be deleted from under their live tasks.
let h: Harness;
let replica: RunningGateway;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  replica = await h.startGateway({ BODY_LIMIT_BYTES: '2048' });
});
afterAll(async () => {
  await h?.stop();
});

const adminAt = (base: string, method: string, path: string, options: RequestOptions = {}) =>
  send(method, `${base}/admin/v1${path}`, {
    noVersion: true,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    ...options,
  });
const admin = (method: string, path: string, options: RequestOptions = {}): Promise<HttpReply> =>
  adminAt(h.url, method, path, options);

interface StatusBody {
  error: {
    code: number;
    status: string;
    message: string;
    details: Array<{
      '@type': string;
      reason?: string;
      domain?: string;
      fieldViolations?: Array<{ field: string }>;
    }>;
  };
}

function errorOf(reply: HttpReply) {
  const { error } = reply.body as StatusBody;
  const info = error.details.find((d) => d.domain !== undefined);
  const fields = error.details.flatMap((d) => d.fieldViolations ?? []).map((v) => v.field);
  return { ...error, domain: info?.domain, reason: info?.reason, fields };
}

/** A 400 INVALID_ARGUMENT of the admin domain that names `field`. */
function expectInvalid(reply: HttpReply, field: string): void {
  expect(reply.status, reply.text).toBe(400);
  const error = errorOf(reply);
  expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', domain: 'switchyard.admin' });
  expect(error.fields).toContain(field);
}

const issueKey = async (principal: string, extra: Record<string, unknown> = {}) => {
  const created = await admin('POST', '/tenants/acme/api-keys', {
    body: { principal, role: 'user', ...extra },
  });
  expect(created.status, created.text).toBe(201);
  return created.body as { key: { id: string; expiresAt: string | null }; plaintext: string };
};

const listTasks = (base: string, key: string) => send('GET', `${base}/agents/acme/echo/rest/tasks`, { key });

/** Opens a stream with the key; resolves once it delivered its first event, with its end. */
async function streamOf(key: string) {
  const sent = await send('POST', `${h.url}/agents/acme/echo/rest/message:send`, {
    key,
    body: { message: userMessage('held open'), configuration: { returnImmediately: true } },
  });
  const taskId = taskOf(sent.body as { task: never }).id;
  let opened = false;
  const stream = openSse('GET', `${h.url}/agents/acme/echo/rest/tasks/${taskId}:subscribe`, {
    key,
    onEvent: () => (opened = true),
  });
  await waitFor(() => opened, { what: 'the stream open' });
  // Wrapped: an async function returning the promise itself would wait for the stream's end.
  return { ended: stream };
}

/** The stream's end, or 'still open' after a while (a revocation that did not reach it). */
const endOf = (stream: Promise<{ comments: string[] }>) =>
  Promise.race([
    stream.then((s) => s.comments),
    new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 3000)),
  ]);

describe('key ids written in capitals (uuids compare whatever their case in Postgres)', () => {
  it('revoking by an uppercase id refuses the key at once on every gateway and ends its streams', async () => {
    const { key, plaintext } = await issueKey('upper-revoke');
    // Cached on both gateways: only the announcement can make them refuse it within the TTL.
    expect((await listTasks(h.url, plaintext)).status).toBe(200);
    expect((await listTasks(replica.url, plaintext)).status).toBe(200);
    const stream = await streamOf(plaintext);
    expect((await admin('DELETE', `/tenants/acme/api-keys/${key.id.toUpperCase()}`)).status).toBe(200);
    expect((await listTasks(h.url, plaintext)).status).toBe(401);
    expect((await listTasks(replica.url, plaintext)).status).toBe(401);
    expect(await endOf(stream.ended)).toContain('credential revoked');
  });

  it('rotating by an uppercase id does the same for the old key', async () => {
    const { key, plaintext } = await issueKey('upper-rotate');
    expect((await listTasks(h.url, plaintext)).status).toBe(200);
    expect((await listTasks(replica.url, plaintext)).status).toBe(200);
    const stream = await streamOf(plaintext);
    const rotated = await admin('POST', `/tenants/acme/api-keys/${key.id.toUpperCase()}:rotate`);
    expect(rotated.status).toBe(200);
    expect((await listTasks(h.url, plaintext)).status).toBe(401);
    expect((await listTasks(replica.url, plaintext)).status).toBe(401);
    expect(await endOf(stream.ended)).toContain('credential revoked');
    expect((await listTasks(h.url, (rotated.body as { plaintext: string }).plaintext)).status).toBe(200);
  });
});

describe('path parameters are checked before the store sees them (400 naming the parameter)', () => {
  const uuid = '3f1c0000-0000-4000-8000-000000000000';
  it.each([
    ['GET', '/tenants/ac%00me/agents', 'tenantId'],
    ['GET', '/tenants/ac%00me/api-keys', 'tenantId'],
    ['POST', '/tenants/ac%00me:disable', 'tenantId'],
    ['POST', '/tenants/ac%00me:enable', 'tenantId'],
    ['POST', '/tenants/ac%00me/webhook-secret:rotate', 'tenantId'],
    ['PATCH', '/tenants/ac%00me', 'tenantId'],
    ['PUT', '/tenants/acme/agents/ec%00ho', 'agentId'],
    ['DELETE', '/tenants/acme/agents/ec%00ho', 'agentId'],
    ['DELETE', '/tenants/ac%00me/agents/echo', 'tenantId'],
    ['DELETE', '/tenants/acme/api-keys/%00', 'keyId'],
    ['DELETE', '/tenants/acme/api-keys/not-a-uuid', 'keyId'],
    ['POST', '/tenants/acme/api-keys/abc%00:rotate', 'keyId'],
    ['GET', '/tenants/ac%00me/dead-letters', 'tenantId'],
    ['POST', '/tenants/ac%00me/dead-letters:replay', 'tenantId'],
    ['POST', `/tenants/acme/dead-letters/%00/c/1:replay`, 'taskId'],
    ['POST', `/tenants/acme/dead-letters/${'-'.repeat(36)}/c/1:replay`, 'taskId'],
    ['POST', `/tenants/acme/dead-letters/${uuid}/c%00/1:replay`, 'configId'],
    ['POST', `/tenants/acme/dead-letters/${uuid}/c/3000000000:replay`, 'seq'],
    ['POST', `/tenants/acme/dead-letters/${uuid}/c/1e3:replay`, 'seq'],
    ['POST', `/tenants/acme/dead-letters/${uuid}/c/0:replay`, 'seq'],
  ])('%s %s', async (method, path, field) => {
    const reply = await admin(
      method,
      path,
      method === 'PUT' ? { body: { card: echoAgent.card, executor: 'echo' } } : {},
    );
    expectInvalid(reply, field);
  });

  it('a malformed percent-encoding is an admin 400 too', async () => {
    const reply = await admin('GET', '/tenants/%E0%A4%A/agents');
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatchObject({ status: 'INVALID_ARGUMENT', domain: 'switchyard.admin' });
  });

  it('a replay of a delivery that cannot exist (well-formed key) is 404', async () => {
    expect(
      (await admin('POST', `/tenants/acme/dead-letters/${uuid.toUpperCase()}/c/2147483647:replay`)).status,
    ).toBe(404);
  });
});

describe('dead-letter query parameters', () => {
  const cursor = (parts: unknown[]) => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
  const uuid = '3f1c0000-0000-4000-8000-000000000000';
  const at = '2026-01-01T00:00:00.000000Z';

  it.each([
    ['a month 13', cursor(['2026-13-45T99:99:99.000000Z', uuid, 'c', 1])],
    ['a task id of dashes', cursor([at, '-'.repeat(36), 'c', 1])],
    ['a NUL in the config id', cursor([at, uuid, 'c\u0000', 1])],
    ['a seq of 1e300', cursor([at, uuid, 'c', 1e300])],
    ['a seq past integer', cursor([at, uuid, 'c', 3_000_000_000])],
    ['a NUL', '%00'],
    ['garbage', 'garbage'],
  ])('a forged cursor (%s) is 400 naming cursor', async (_what, value) => {
    expectInvalid(await admin('GET', `/tenants/acme/dead-letters?cursor=${value}`), 'cursor');
  });

  it('a cursor the API issued for a long config id is taken (it runs past 1,024 characters)', async () => {
    const long = cursor([at, uuid, '\u6f22'.repeat(256), 2_147_483_647]);
    expect(long.length).toBeGreaterThan(1024);
    expect((await admin('GET', `/tenants/acme/dead-letters?cursor=${long}`)).status).toBe(200);
  });

  it('limit: empty is the default, 1e2 and 0x10 are refused as query parameters, not a body', async () => {
    expect((await admin('GET', '/tenants/acme/dead-letters?limit=')).status).toBe(200);
    expect((await admin('GET', '/tenants/acme/dead-letters?limit=&cursor=')).status).toBe(200);
    expect((await admin('GET', '/tenants/acme/dead-letters?limit=500')).status).toBe(200);
    for (const limit of ['1e2', '0x10', '0', '501', '-1', '5.0', 'abc']) {
      const reply = await admin('GET', `/tenants/acme/dead-letters?limit=${limit}`);
      expectInvalid(reply, 'limit');
      expect(errorOf(reply).message).not.toContain('body');
      expect(errorOf(reply).message).toContain('query parameters');
    }
  });

  it('an unknown tenant is 404, as on the other tenant routes', async () => {
    expect((await admin('GET', '/tenants/nobody/dead-letters')).status).toBe(404);
    expect((await admin('POST', '/tenants/nobody/dead-letters:replay')).status).toBe(404);
    expect((await admin('POST', `/tenants/nobody/dead-letters/${uuid}/c/1:replay`)).status).toBe(404);
  });
});

describe('request bodies are strict', () => {
  it('an unknown field is refused, named, on every body', async () => {
    expectInvalid(
      await admin('POST', '/tenants', { body: { id: 'strict-co', name: 'Strict', plan: 'gold' } }),
      'plan',
    );
    expectInvalid(
      await admin('POST', '/tenants/acme/api-keys', {
        body: { principal: 'p', role: 'user', expires: '2099-01-01T00:00:00Z' },
      }),
      'expires',
    );
    expectInvalid(
      await admin('PUT', '/tenants/acme/agents/typo', {
        body: { card: echoAgent.card, executor: 'slow', setting: { delayMs: 1 } },
      }),
      'setting',
    );
    // The upstream registration's too, before anything is fetched.
    expectInvalid(
      await admin('PUT', '/tenants/acme/agents/typo', {
        body: {
          executor: 'a2a-upstream',
          settings: { cardUrl: 'http://127.0.0.1:9/card' },
          bindng: 'JSONRPC',
        },
      }),
      'bindng',
    );
    expect((await admin('GET', '/tenants/acme/agents')).text).not.toContain('"typo"');
  });

  it('a key may be issued with expiresAt: shown in its JSON, and it stops working then', async () => {
    const expiresAt = new Date(Date.now() + 1500);
    const { key, plaintext } = await issueKey('short-lived', { expiresAt: expiresAt.toISOString() });
    expect(key.expiresAt).toBe(expiresAt.toISOString());
    const listed = (await admin('GET', '/tenants/acme/api-keys')).body as {
      keys: Array<{ id: string; expiresAt: string }>;
    };
    expect(listed.keys.find((k) => k.id === key.id)?.expiresAt).toBe(expiresAt.toISOString());
    expect((await listTasks(h.url, plaintext)).status).toBe(200);
    await waitFor(async () => (await listTasks(h.url, plaintext)).status === 401, {
      timeoutMs: 5000,
      what: 'the key expired',
    });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt.getTime());
  });

  it('expiresAt with an offset is taken; one in the past or not RFC 3339 is refused', async () => {
    const { key } = await issueKey('offset', { expiresAt: '2099-06-01T12:00:00+02:00' });
    expect(key.expiresAt).toBe('2099-06-01T10:00:00.000Z');
    for (const expiresAt of ['2001-01-01T00:00:00Z', 'tomorrow', '2099-06-01', 1_900_000_000])
      expectInvalid(
        await admin('POST', '/tenants/acme/api-keys', { body: { principal: 'p', role: 'user', expiresAt } }),
        'expiresAt',
      );
  });
});

describe('every admin error carries the admin domain', () => {
  it('415, bad JSON, 413 and NUL text', async () => {
    const unsupported = await admin('POST', '/tenants', {
      raw: 'id=x',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'text/plain' },
    });
    expect(unsupported.status).toBe(415);
    expect(errorOf(unsupported)).toMatchObject({ code: 415, domain: 'switchyard.admin' });

    const broken = await admin('POST', '/tenants', { raw: '{"id":' });
    expect(broken.status).toBe(400);
    expect(errorOf(broken)).toMatchObject({ status: 'INVALID_ARGUMENT', domain: 'switchyard.admin' });

    const large = await adminAt(replica.url, 'POST', '/tenants', {
      body: { id: 'big', name: 'x'.repeat(4096) },
    });
    expect(large.status).toBe(413);
    expect(errorOf(large)).toMatchObject({ code: 413, domain: 'switchyard.admin' });

    const nul = await admin('POST', '/tenants', { raw: '{"id":"nul","name":"a\\u0000b"}' });
    expectInvalid(nul, 'name');
  });

  it('an unknown executor lists every executor the worker knows', async () => {
    const reply = await admin('PUT', '/tenants/acme/agents/x', {
      body: { card: echoAgent.card, executor: 'rm-rf' },
    });
    expectInvalid(reply, 'executor');
    for (const executor of ['echo', 'invoice-reconciler', 'booking', 'slow', 'conformance', 'a2a-upstream'])
      expect(reply.text).toContain(executor);
  });
});

describe('deleting an agent with live tasks', () => {
  it('is refused with 409 FAILED_PRECONDITION giving the count, until the tasks are finished', async () => {
    const put = await admin('PUT', '/tenants/acme/agents/doomed', {
      body: { card: echoAgent.card, executor: 'slow', settings: { delayMs: 60_000 } },
    });
    expect(put.status).toBe(200);
    const sent = await send('POST', `${h.url}/agents/acme/doomed/rest/message:send`, {
      key: h.fixtures.keys.alice,
      body: { message: userMessage('in flight'), configuration: { returnImmediately: true } },
    });
    const taskId = taskOf(sent.body as { task: never }).id;
    const refused = await admin('DELETE', '/tenants/acme/agents/doomed');
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toMatchObject({
      code: 409,
      status: 'FAILED_PRECONDITION',
      domain: 'switchyard.admin',
      message: expect.stringContaining('1 live'),
    });
    expect(errorOf(refused).message).toMatch(/cancel/);
    // Still served: the task can be read and canceled through its agent.
    const task = `${h.url}/agents/acme/doomed/rest/tasks/${taskId}`;
    expect((await send('GET', task, { key: h.fixtures.keys.alice })).status).toBe(200);
    expect((await send('POST', `${task}:cancel`, { key: h.fixtures.keys.alice })).status).toBe(200);
    await waitFor(async () => (await admin('DELETE', '/tenants/acme/agents/doomed')).status === 200, {
      what: 'the agent deleted once its task was canceled',
    });
    expect((await admin('DELETE', '/tenants/acme/agents/doomed')).status).toBe(404);
  });
});
