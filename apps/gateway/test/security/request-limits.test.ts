import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startHarness, type Harness } from '../support/harness.ts';
import { send } from '../support/http.ts';
import { userMessage } from '../support/messages.ts';
import { rawRequest } from './fuzz-probe.ts';
import { a2aRoutes, toRequest } from './routes.ts';
import { snapshotStore } from './store-snapshot.ts';
import { expectWellFormedRestError, expectWellFormedRpc } from './well-formed.ts';

// Issue 8, security suite: the documented request limits hold on every route that takes a body
// (gateway README "Limits": BODY_LIMIT_BYTES → 413, protocol limits → InvalidParams), and a
// refused request stores nothing. Rate limits are in rate-limits.test.ts.
const LIMIT = 16 * 1024;
let h: Harness;
let taskId: string;
let configId: string;

beforeAll(async () => {
  h = await startHarness({
    worker: false,
    env: { BODY_LIMIT_BYTES: String(LIMIT), BLOCKING_TIMEOUT_MS: '0', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
  });
  const base = `${h.url}/agents/acme/echo/rest`;
  const sent = await send('POST', `${base}/message:send`, {
    key: h.fixtures.keys.alice,
    body: { message: userMessage('limits'), configuration: { returnImmediately: true } },
  });
  taskId = (sent.body as { task: { id: string } }).task.id;
  const config = await send('POST', `${base}/tasks/${taskId}/pushNotificationConfigs`, {
    key: h.fixtures.keys.alice,
    body: { url: 'http://127.0.0.1:9/limits' },
  });
  configId = (config.body as { id: string }).id;
});
afterAll(async () => {
  await h?.stop();
});

/** Pads a JSON body with an ignored field until it is exactly `bytes` long. */
function padded(body: unknown, bytes: number): string {
  const bare = JSON.stringify({ ...(body as object), pad: '' });
  return JSON.stringify({ ...(body as object), pad: 'x'.repeat(bytes - bare.length) });
}

describe('BODY_LIMIT_BYTES on every route that takes a body', () => {
  const bodyRoutes = () =>
    a2aRoutes('/agents/acme/echo', 'acme', taskId, configId).filter((r) => r.body !== undefined);

  it('one byte over the limit is 413 PayloadTooLarge in the binding format, and stores nothing', async () => {
    const before = await snapshotStore(h.db.pool);
    for (const route of bodyRoutes()) {
      const request = toRequest(h.url, route, { 'X-API-Key': h.fixtures.keys.alice });
      const reply = await rawRequest({ ...request, body: padded(route.body, LIMIT + 1) });
      expect(reply.status, route.name).toBe(413);
      if (route.binding === 'jsonrpc') expectWellFormedRpc(reply);
      else expectWellFormedRestError(reply);
      expect(reply.text, route.name).toContain('PAYLOAD_TOO_LARGE');
    }
    expect(await snapshotStore(h.db.pool)).toEqual(before);
  });

  it('a body of exactly the limit is read (whatever the operation then answers)', async () => {
    for (const route of bodyRoutes().filter(
      (r) => r.name.includes('GetTask') || r.name.includes('ListTasks'),
    )) {
      const request = toRequest(h.url, route, { 'X-API-Key': h.fixtures.keys.alice });
      const reply = await rawRequest({ ...request, body: padded(route.body, LIMIT) });
      expect(reply.status, route.name).toBe(200);
    }
  });

  it('a chunked body without Content-Length is cut at the limit on both bindings', async () => {
    for (const path of ['/agents/acme/echo/rpc', '/agents/acme/echo/rest/message:send']) {
      let sent = 0;
      const chunk = new TextEncoder().encode('x'.repeat(4096));
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          // Far more than the limit: the gateway must stop reading, not buffer it all.
          if (sent++ < 64) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const response = await fetch(`${h.url}${path}`, {
        method: 'POST',
        headers: {
          'A2A-Version': '1.0',
          'Content-Type': 'application/json',
          'X-API-Key': h.fixtures.keys.alice,
        },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(response.status, path).toBe(413);
      expect(await response.text()).toContain('PAYLOAD_TOO_LARGE');
    }
  });

  it('the admin API has the same body limit', async () => {
    const before = await snapshotStore(h.db.pool);
    const reply = await rawRequest({
      method: 'POST',
      url: `${h.url}/admin/v1/tenants`,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: padded({ id: 'big', name: 'Big' }, LIMIT + 1),
    });
    expect(reply.status).toBe(413);
    expect(await snapshotStore(h.db.pool)).toEqual(before);
  });

  it('request headers past Node’s 16 KiB limit are 431 and the gateway keeps serving', async () => {
    const reply = await rawRequest({
      method: 'GET',
      url: `${h.url}/agents/acme/echo/rest/tasks`,
      headers: { 'A2A-Version': '1.0', 'X-API-Key': h.fixtures.keys.alice, 'X-Filler': 'f'.repeat(20_000) },
    });
    expect(reply.status).toBe(431);
    const ok = await send('GET', `${h.url}/agents/acme/echo/rest/tasks`, { key: h.fixtures.keys.alice });
    expect(ok.status).toBe(200);
  });
});

describe('protocol limits inside a body that fits (gateway README "Limits")', () => {
  const big = (n: number) => 'x'.repeat(n);
  it.each<[string, Record<string, unknown>]>([
    ['65 parts', { parts: Array.from({ length: 65 }, () => ({ text: 'p' })) }],
    ['a messageId of 257 characters', { messageId: big(257) }],
    ['a contextId with a slash', { contextId: 'a/b' }],
    [
      'metadata nested 65 levels',
      { metadata: JSON.parse(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`) as object },
    ],
    ['a filename of 1025 characters', { parts: [{ raw: 'aGk=', filename: big(1025) }] }],
    ['a mediaType of 1025 characters', { parts: [{ text: 'x', mediaType: big(1025) }] }],
    ['65 extensions', { extensions: Array.from({ length: 65 }, (_, i) => `https://ext.example/${i}`) }],
    ['65 referenceTaskIds', { referenceTaskIds: Array.from({ length: 65 }, (_, i) => `t${i}`) }],
  ])('%s is InvalidParams on both bindings and stores nothing', async (_what, patch) => {
    const before = await snapshotStore(h.db.pool);
    const params = {
      message: { ...userMessage('limit'), ...patch },
      configuration: { returnImmediately: true },
    };
    const rpc = await send('POST', `${h.url}/agents/acme/echo/rpc`, {
      key: h.fixtures.keys.alice,
      body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params },
    });
    expect(rpc.body).toMatchObject({ error: { code: -32602 } });
    const rest = await send('POST', `${h.url}/agents/acme/echo/rest/message:send`, {
      key: h.fixtures.keys.alice,
      body: params,
    });
    expect(rest.status).toBe(400);
    expect(await snapshotStore(h.db.pool)).toEqual(before);
  });
});

describe('bounded fields outside the message (gateway README "Limits")', () => {
  const params = (configuration: Record<string, unknown>) => ({
    message: userMessage('limit'),
    configuration: { returnImmediately: true, ...configuration },
  });
  it.each<[string, string, Record<string, unknown>]>([
    [
      '65 acceptedOutputModes',
      'configuration.acceptedOutputModes',
      { acceptedOutputModes: Array.from({ length: 65 }, () => 'text/plain') },
    ],
    [
      'an inline push token of 8193 characters',
      'configuration.taskPushNotificationConfig.token',
      { taskPushNotificationConfig: { url: 'http://127.0.0.1:9/t', token: 'x'.repeat(8193) } },
    ],
  ])('%s is InvalidParams naming %s on both bindings and stores nothing', async (_what, field, patch) => {
    const before = await snapshotStore(h.db.pool);
    const rpc = await send('POST', `${h.url}/agents/acme/echo/rpc`, {
      key: h.fixtures.keys.alice,
      body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: params(patch) },
    });
    expect(rpc.body).toMatchObject({ error: { code: -32602 } });
    expect(JSON.stringify(rpc.body)).toContain(`"field":"${field}"`);
    const rest = await send('POST', `${h.url}/agents/acme/echo/rest/message:send`, {
      key: h.fixtures.keys.alice,
      body: params(patch),
    });
    expect(rest.status).toBe(400);
    expect(JSON.stringify(rest.body)).toContain(`"field":"${field}"`);
    expect(await snapshotStore(h.db.pool)).toEqual(before);
  });

  it('push config credentials over 8192 characters are InvalidParams and store nothing', async () => {
    const before = await snapshotStore(h.db.pool);
    const config = {
      url: 'http://127.0.0.1:9/creds',
      authentication: { scheme: 'Bearer', credentials: 'x'.repeat(8193) },
    };
    const rpc = await send('POST', `${h.url}/agents/acme/echo/rpc`, {
      key: h.fixtures.keys.alice,
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'CreateTaskPushNotificationConfig',
        params: { taskId, ...config },
      },
    });
    expect(rpc.body).toMatchObject({ error: { code: -32602 } });
    expect(JSON.stringify(rpc.body)).toContain('"field":"authentication.credentials"');
    const rest = await send(
      'POST',
      `${h.url}/agents/acme/echo/rest/tasks/${taskId}/pushNotificationConfigs`,
      {
        key: h.fixtures.keys.alice,
        body: config,
      },
    );
    expect(rest.status).toBe(400);
    expect(await snapshotStore(h.db.pool)).toEqual(before);
  });
});
