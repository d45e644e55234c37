import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { send } from '../support/http.ts';
import { userMessage } from '../support/messages.ts';
import { snapshotStore } from './store-snapshot.ts';
import { expectWellFormedRestError } from './well-formed.ts';

// Internal errors the security suite's fuzzing found, pinned down on both bindings: a pageToken
// the server never issued (push-config lists), and strings Postgres cannot store (U+0000 and lone
// surrogates) in bodies, queries and paths. Each must be bad input (400 / -32602) that stores nothing.
let h: Harness;
let rpcUrl: string;
let ids: { taskId: string };

beforeAll(async () => {
  h = await startHarness({ worker: false, env: { BLOCKING_TIMEOUT_MS: '0' } });
  rpcUrl = `${h.url}/agents/acme/echo/rpc`;
  const sent = await send('POST', `${h.url}/agents/acme/echo/rest/message:send`, {
    key: h.fixtures.keys.alice,
    body: { message: userMessage('regressions'), configuration: { returnImmediately: true } },
  });
  ids = { taskId: (sent.body as { task: { id: string } }).task.id };
});
afterAll(async () => {
  await h?.stop();
});

describe('regressions found by fuzzing', () => {
  it('a pageToken the server never issued is InvalidParams on both bindings, not an internal error', async () => {
    const key = h.fixtures.keys.alice;
    const rpc = await send('POST', rpcUrl, {
      key,
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'ListTaskPushNotificationConfigs',
        params: { taskId: ids.taskId, pageToken: 'TASK_STATE_SLEEPING' },
      },
    });
    expect(rpc.body).toMatchObject({ id: 1, error: { code: -32602 } });
    const rest = await send(
      'GET',
      `${h.url}/agents/acme/echo/rest/tasks/${ids.taskId}/pushNotificationConfigs?pageToken=garbage`,
      { key },
    );
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
  });

  it.each([
    ['NUL in an id', { messageId: 'a\u0000b' }],
    ['NUL in a text part', { parts: [{ text: 'x\u0000' }] }],
    ['a lone surrogate in metadata', { metadata: { k: '\ud800' } }],
    ['NUL in a metadata key', { metadata: { 'k\u0000': 1 } }],
  ])('%s is InvalidParams on both bindings and stores nothing', async (_what, patch) => {
    const key = h.fixtures.keys.alice;
    const before = await snapshotStore(h.db.pool);
    const message = { ...userMessage('unstorable'), ...patch };
    const params = { message, configuration: { returnImmediately: true } };
    const rpc = await send('POST', rpcUrl, {
      key,
      body: { jsonrpc: '2.0', id: 'u', method: 'SendMessage', params },
    });
    expect(rpc.body).toMatchObject({ id: 'u', error: { code: -32602 } });
    const rest = await send('POST', `${h.url}/agents/acme/echo/rest/message:send`, { key, body: params });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    expect(await snapshotStore(h.db.pool)).toEqual(before);
  });

  it('NUL at the bottom of 20,000 levels of nesting is found without recursion, in a short reply', async () => {
    const depth = 20_000;
    const raw = `{"message":{"messageId":"deep","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":${'{"a":'.repeat(depth)}"\\u0000"${'}'.repeat(depth)}}}`;
    const reply = await send('POST', `${h.url}/agents/acme/echo/rest/message:send`, {
      key: h.fixtures.keys.alice,
      raw,
    });
    expect(reply.status).toBe(400);
    expectWellFormedRestError(reply);
    expect(reply.text).toContain('U+0000');
    expect(reply.text.length).toBeLessThan(2048);
  });

  it('%00 in a REST query value or path segment is a 400, not an internal error', async () => {
    const key = h.fixtures.keys.alice;
    const base = `${h.url}/agents/acme/echo/rest/tasks`;
    for (const url of [`${base}?contextId=a%00`, `${base}/${ids.taskId}/pushNotificationConfigs/a%00`]) {
      const reply = await send('GET', url, { key });
      expect(reply.status, url).toBe(400);
      expectWellFormedRestError(reply);
    }
  });
});
