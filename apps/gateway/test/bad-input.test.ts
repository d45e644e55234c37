import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { send, type RequestOptions } from './support/http.ts';
import { userMessage } from './support/messages.ts';

// Digest §4.1, §5.3, §5.4 and §9 rule 7: every kind of bad input gets the error the spec names, in
// the binding's format, and never a stack trace.
const LIMIT = 64 * 1024;
let h: Harness;
let rpcUrl: string;
let restUrl: string;
beforeAll(async () => {
  h = await startHarness({ env: { BODY_LIMIT_BYTES: String(LIMIT) } });
  rpcUrl = `${h.url}/agents/acme/echo/rpc`;
  restUrl = `${h.url}/agents/acme/echo/rest`;
});
afterAll(async () => {
  await h?.stop();
});

const key = () => h.fixtures.keys.alice;
const rpc = (options: RequestOptions) => send('POST', rpcUrl, { key: key(), ...options });
const rpcError = (body: unknown) =>
  (body as { error: { code: number; data: Array<Record<string, unknown>> } }).error;
const sendMessage = { message: userMessage('x') };

describe('JSON-RPC bad input (digest §4.1, §5.3)', () => {
  it('malformed JSON is -32700 with id null and HTTP 200', async () => {
    const reply = await rpc({ raw: '{"jsonrpc":"2.0",' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('an empty body is -32700', async () => {
    const reply = await send('POST', rpcUrl, { key: key(), headers: { 'Content-Type': 'application/json' } });
    expect(rpcError(reply.body).code).toBe(-32700);
  });

  it('a wrong envelope is -32600 and echoes the id', async () => {
    const reply = await rpc({ body: { jsonrpc: '1.0', id: 7, method: 'GetTask', params: {} } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: 7, error: { code: -32600 } });
  });

  it('an id past 256 characters is -32600 with a null id, on a stream too, and opens nothing', async () => {
    for (const method of ['SubscribeToTask', 'SendStreamingMessage', 'GetTask']) {
      const reply = await rpc({ body: { jsonrpc: '2.0', id: 'i'.repeat(10_000), method, params: {} } });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.body).toMatchObject({ id: null, error: { code: -32600 } });
      expect(JSON.stringify(reply.body).length).toBeLessThan(1_000);
    }
  });

  it('an integer id beyond 2^53 comes back digit for digit, on a reply, a refusal, a batch and a stream', async () => {
    // 2^53 + 1: as a double it reads 9007199254740992, and a client matching by id lost the reply.
    const big = '9007199254740993';
    const negative = '-123456789012345678901';
    const getTask = `{"jsonrpc":"2.0","id":${big},"method":"GetTask","params":{"id":"${randomUUID()}"}}`;
    expect((await rpc({ raw: getTask })).text).toContain(`"id":${big},`);
    expect((await rpc({ raw: getTask.replace(big, negative) })).text).toContain(`"id":${negative},`);
    const refused = await send('POST', rpcUrl, { raw: getTask });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain(`"id":${big},`);
    expect((await rpc({ raw: `[${getTask}]` })).text).toContain(`"id":${big},`);
    const stream = await rpc({
      raw: `{"jsonrpc":"2.0","id":${big},"method":"SendStreamingMessage","params":${JSON.stringify(sendMessage)}}`,
      headers: { Accept: 'text/event-stream' },
    });
    const events = stream.text.split('\n').filter((line) => line.startsWith('data:'));
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect(event).toContain(`"id":${big},`);
  });

  it('a long number elsewhere in a request stays an ordinary number', async () => {
    const reply = await rpc({
      raw: `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${JSON.stringify(userMessage('x'))},"metadata":{"id":12345678901234567890}}}`,
    });
    expect(reply.body).toMatchObject({ id: 1, result: { task: { id: expect.any(String) } } });
  });

  it('a batch gets an array with -32600 for each request, under its own id (A2A defines no batches)', async () => {
    const reply = await rpc({
      body: [
        { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: randomUUID() } },
        { jsonrpc: '2.0', id: 'two', method: 'ListTasks', params: {} },
        'not a request',
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: '2.0', id: 'two', error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
    ]);
    // An empty array is no batch: one -32600 (JSON-RPC 2.0 §6).
    const empty = await rpc({ body: [] });
    expect(empty.body).toMatchObject({ id: null, error: { code: -32600 } });
    // A huge batch of tiny requests gets one refusal, not a reply a hundred times its size.
    const huge = await rpc({ raw: `[${Array.from({ length: 5_000 }, () => '0').join(',')}]` });
    expect(huge.body).toMatchObject({ id: null, error: { code: -32600 } });
    expect(huge.text.length).toBeLessThan(1_000);
  });

  it('an unknown method is -32601', async () => {
    const reply = await rpc({
      body: { jsonrpc: '2.0', id: 'm', method: 'message/send', params: sendMessage },
    });
    expect(reply.body).toMatchObject({ id: 'm', error: { code: -32601 } });
  });

  it('invalid params are -32602 with BadRequest field violations', async () => {
    const reply = await rpc({
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } },
      },
    });
    const error = rpcError(reply.body);
    expect(error.code).toBe(-32602);
    const badRequest = error.data.find((d) => String(d['@type']).endsWith('BadRequest'));
    expect(badRequest?.['fieldViolations']).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: expect.stringContaining('parts') })]),
    );
  });

  it('a bad enum string is -32602', async () => {
    const reply = await rpc({
      body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { status: 'TASK_STATE_SLEEPING' } },
    });
    expect(rpcError(reply.body).code).toBe(-32602);
  });

  it('pageSize out of 1..100 is -32602 (§7.4 rule 22)', async () => {
    const reply = await rpc({
      body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { pageSize: 150 } },
    });
    expect(rpcError(reply.body).code).toBe(-32602);
  });

  it('an unknown task id is TaskNotFound -32001', async () => {
    const reply = await rpc({
      body: { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'no-such-task' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: 2,
      error: { code: -32001, data: [expect.objectContaining({ reason: 'TASK_NOT_FOUND' })] },
    });
  });

  it('a body over the limit is HTTP 413 with a JSON-RPC error body', async () => {
    const big = 'x'.repeat(LIMIT + 10);
    const reply = await rpc({
      body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage(big) } },
    });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({
      jsonrpc: '2.0',
      error: { data: [expect.objectContaining({ reason: 'PAYLOAD_TOO_LARGE' })] },
    });
  });

  it('a non-JSON Content-Type is 415 with -32005, as the TCK asserts (JSONRPC-SSE-002)', async () => {
    const reply = await rpc({ raw: '{}', headers: { 'Content-Type': 'text/plain' } });
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32005 } });
  });

  it.each(['application/json; charset=utf-8', 'application/a2a+json', 'Application/JSON;charset="UTF-8"'])(
    'Content-Type %s is accepted',
    async (type) => {
      const reply = await rpc({
        raw: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
        headers: { 'Content-Type': type },
      });
      expect(reply.body).toMatchObject({ id: 1, result: { tasks: expect.any(Array) } });
    },
  );

  it('a charset other than UTF-8 is 415', async () => {
    const reply = await rpc({ raw: '{}', headers: { 'Content-Type': 'application/json; charset=latin1' } });
    expect(reply.status).toBe(415);
  });

  it('GET on the JSON-RPC endpoint is 405, with Allow: POST', async () => {
    const reply = await send('GET', rpcUrl, { key: key() });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST');
    expect(reply.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32601 } });
  });
});

describe('JSON-RPC refusals before the body is read (JSON-RPC 2.0 §5: the id when it can be determined)', () => {
  const getTask = { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: randomUUID() } };

  it('no credentials: 401 that echoes the request id', async () => {
    const reply = await send('POST', rpcUrl, { body: getTask });
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });
  });

  it('an unknown agent: 404 that echoes the request id', async () => {
    const reply = await send('POST', `${h.url}/agents/acme/nobody/rpc`, {
      key: key(),
      body: { ...getTask, id: 'req-404' },
    });
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ id: 'req-404', error: { code: -32001 } });
  });

  it('a body that is not declared JSON is never parsed: 415 with id null', async () => {
    const reply = await send('POST', rpcUrl, {
      raw: JSON.stringify(getTask),
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ id: null, error: { code: -32005 } });
  });

  it('an unreadable or too large refused body: id null', async () => {
    const broken = await send('POST', rpcUrl, { raw: '{"jsonrpc":"2.0","id":7,' });
    expect(broken.status).toBe(401);
    expect(broken.body).toMatchObject({ id: null });
    const big = await send('POST', rpcUrl, { body: { ...getTask, pad: 'x'.repeat(LIMIT) } });
    expect(big.status).toBe(401);
    expect(big.body).toMatchObject({ id: null });
  });
});

describe('HTTP+JSON bad input (digest §4.2, §5.4)', () => {
  const rest = (method: string, path: string, options: RequestOptions = {}) =>
    send(method, `${restUrl}${path}`, { key: key(), ...options });

  it('malformed JSON is 400 INVALID_ARGUMENT', async () => {
    const reply = await rest('POST', '/message:send', { raw: '{"message":' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(reply.headers.get('content-type')).toContain('application/a2a+json');
  });

  it('invalid params are 400 INVALID_ARGUMENT with field violations', async () => {
    const reply = await rest('POST', '/message:send', {
      body: { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } },
    });
    expect(reply.status).toBe(400);
    const f = failure(reply);
    expect(f.reason).toBe('INVALID_PARAMS');
    expect(JSON.stringify(reply.body)).toContain('messageId');
  });

  it('a bad enum in the query is 400', async () => {
    const reply = await rest('GET', '/tasks?status=TASK_STATE_SLEEPING');
    expect(reply.status).toBe(400);
    expect(failure(reply).reason).toBe('INVALID_PARAMS');
  });

  it('a negative historyLength is 400', async () => {
    const reply = await rest('GET', `/tasks/${randomUUID()}?historyLength=-1`);
    expect(reply.status).toBe(400);
  });

  it('a body over the limit is 413', async () => {
    const reply = await rest('POST', '/message:send', {
      body: { message: userMessage('x'.repeat(LIMIT + 10)) },
    });
    expect(reply.status).toBe(413);
    expect(failure(reply).reason).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a chunked body over the limit is 413 too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await fetch(`${restUrl}/message:send`, {
      method: 'POST',
      headers: { 'A2A-Version': '1.0', 'Content-Type': 'application/json', 'X-API-Key': key() },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('a non-JSON Content-Type is 415', async () => {
    const reply = await rest('POST', '/message:send', {
      raw: 'hello',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(reply.status).toBe(415);
  });

  it('an unknown route is 404 NOT_FOUND (google.rpc.Code for 404) and a wrong verb 405', async () => {
    for (const reply of [
      await rest('GET', '/nothing-here/at-all/x'),
      await send('GET', `${h.url}/nowhere`),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({
        error: {
          code: 404,
          status: 'NOT_FOUND',
          details: [expect.objectContaining({ reason: 'METHOD_NOT_FOUND' })],
        },
      });
    }
    const wrongVerb = await rest('DELETE', '/tasks');
    expect(wrongVerb.status).toBe(405);
    // RFC 9110 §15.5.6: a 405 names the verbs the path does take.
    expect(wrongVerb.headers.get('allow')).toBe('GET');
    const onSend = await rest('GET', '/message:send');
    expect(onSend.status).toBe(405);
    expect(onSend.headers.get('allow')).toBe('POST');
    expect((await rest('PUT', `/tasks/${randomUUID()}/pushNotificationConfigs/x`)).headers.get('allow')).toBe(
      'GET, DELETE',
    );
  });

  it('an unknown task is 404 NOT_FOUND with reason TASK_NOT_FOUND', async () => {
    const reply = await rest('GET', `/tasks/${randomUUID()}`);
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        details: [expect.objectContaining({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' })],
      },
    });
  });

  it('a taskId in the push-config body that differs from the path is 400', async () => {
    const reply = await rest('POST', `/tasks/${randomUUID()}/pushNotificationConfigs`, {
      body: { taskId: 'other', url: 'https://example.com/h' },
    });
    expect(reply.status).toBe(400);
  });
});

describe('error mapping column (digest §12 #2)', () => {
  it('TaskNotCancelable is 400 under v1.0.1 and 409 under v1.0.0', async () => {
    const done = await send('POST', `${restUrl}/message:send`, {
      key: key(),
      body: { message: userMessage('done') },
    });
    const id = (done.body as { task: { id: string } }).task.id;
    const v101 = await send('POST', `${restUrl}/tasks/${id}:cancel`, { key: key() });
    expect(v101.status).toBe(400);
    expect(v101.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    const old = await h.startGateway({ HTTP_ERROR_MAPPING: 'v1.0.0' });
    const v100 = await send('POST', `${old.url}/agents/acme/echo/rest/tasks/${id}:cancel`, { key: key() });
    expect(v100.status).toBe(409);
    expect(failure(v100).reason).toBe('TASK_NOT_CANCELABLE');
  });
});

describe('internal errors never leak (ARCHITECTURE.md §3 rule 7)', () => {
  it('a broken registration gives the generic Internal error on both bindings', async () => {
    await h.admin.upsertAgent({
      tenantId: 'acme',
      id: 'broken',
      card: { name: 'no description' },
      executor: 'echo',
    });
    const viaRpc = await send('POST', `${h.url}/agents/acme/broken/rpc`, {
      key: key(),
      body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: randomUUID() } },
    });
    expect(viaRpc.body).toMatchObject({ id: 1, error: { code: -32603, message: 'Internal error' } });
    const viaRest = await send('GET', `${h.url}/agents/acme/broken/rest/tasks`, { key: key() });
    expect(viaRest.status).toBe(500);
    expect(viaRest.body).toMatchObject({
      error: { code: 500, status: 'INTERNAL', message: 'Internal error' },
    });
    for (const text of [viaRpc.text, viaRest.text]) expect(text).not.toMatch(/ZodError|\bat .+\.ts:\d+/);
    const card = await send('GET', `${h.url}/agents/acme/broken/.well-known/agent-card.json`);
    expect(card.status).toBe(500);
  });
});

describe('HTTP+JSON media type (digest §12 #3)', () => {
  const typeOf = (reply: { headers: Headers }) => reply.headers.get('content-type')?.split(';')[0];
  const both = async (base: string, accept?: string) => {
    const headers: Record<string, string> = accept === undefined ? {} : { Accept: accept };
    const ok = await send('GET', `${base}/agents/acme/echo/rest/tasks`, { key: key(), headers });
    const bad = await send('GET', `${base}/agents/acme/echo/rest/tasks/${randomUUID()}`, {
      key: key(),
      headers,
    });
    expect([ok.status, bad.status]).toEqual([200, 404]);
    return [typeOf(ok), typeOf(bad)];
  };

  it('is a2a+json by default, and plain JSON for a client that accepts only that', async () => {
    expect(await both(h.url)).toEqual(['application/a2a+json', 'application/a2a+json']);
    expect(await both(h.url, 'application/a2a+json, application/json')).toEqual([
      'application/a2a+json',
      'application/a2a+json',
    ]);
    expect(await both(h.url, 'application/json')).toEqual(['application/json', 'application/json']);
  });

  it('is plain JSON whatever the Accept with HTTP_JSON_MEDIA_TYPE=application/json (1.0.0, the TCK)', async () => {
    const plain = await h.startGateway({ HTTP_JSON_MEDIA_TYPE: 'application/json' });
    for (const accept of [undefined, '*/*', 'application/a2a+json'])
      expect(await both(plain.url, accept)).toEqual(['application/json', 'application/json']);
  });
});
