import { createLogger } from '@switchyard/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleHarness, type ConsoleHarness } from './support/console-harness.ts';
import { bearer } from './support/http-client.ts';

// What anyone can send without signing in (a missing asset, a malformed path, a cookie that is not
// percent-encoding) is the client's mistake: it answers 4xx in the console's error shape and is not
// logged as an error. A 500 there would page someone for every scanner that passes by.
let h: ConsoleHarness;
let base: string;
const lines: Array<{ level: number; msg: string }> = [];

beforeAll(async () => {
  const log = createLogger({
    name: 'console',
    level: 'debug',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) },
  });
  h = await startConsoleHarness({}, log);
  base = h.baseUrl;
});
afterAll(() => h.close());

/** pino's level number for `error`: nothing a client sends may log at it or above. */
const ERROR = 50;

function errorLines() {
  return lines.filter((l) => l.level >= ERROR);
}

describe('client errors before sign-in', () => {
  it.each([
    ['a missing asset', '/assets/no-such-file.js', 404, 'NOT_FOUND'],
    ['a malformed asset path', '/assets/%zz.js', 400, 'INVALID_ARGUMENT'],
  ])('answers %s with its 4xx in the console error shape', async (_what, path, code, status) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(code);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({ code, status });
    // serve-static's own message names the file it looked for on the server's disk.
    expect(body.error.message).not.toContain('/public');
    expect(errorLines()).toEqual([]);
  });

  it('still serves the assets that exist', async () => {
    expect((await fetch(`${base}/assets/console.js`)).status).toBe(200);
  });

  it('treats a session cookie that is not percent-encoding as no cookie', async () => {
    const cookie = 'sy_console=%zz';
    const login = await fetch(`${base}/login`, { headers: { cookie, accept: 'text/html' } });
    expect(login.status).toBe(200);
    const page = await fetch(`${base}/tasks`, {
      redirect: 'manual',
      headers: { cookie, accept: 'text/html' },
    });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toMatch(/^\/login\?next=/);
    // A bearer caller with a stray cookie is not disturbed by it either.
    const api = await fetch(`${base}/api/tenants`, { headers: { cookie, ...bearer() } });
    expect(api.status).toBe(200);
    expect(errorLines()).toEqual([]);
  });
});

// Found in review: Postgres text holds no U+0000, so a NUL in a filter, a context id or a replay
// field failed in the store: a 500 and an error log line for the client's mistake.
describe('a NUL in what a signed-in caller sends', () => {
  it.each([
    ['a context filter', '/api/tasks?tenant=acme&context=%00', 400],
    ['a search', '/api/tasks?tenant=acme&q=%00x', 400],
    ['a context page', '/contexts/acme/%00', 404],
    ['a context stream', '/contexts/acme/%00/stream', 404],
  ])('is refused in %s, and nothing is logged as an error', async (_what, path, code) => {
    const res = await fetch(`${base}${path}`, { headers: bearer() });
    expect(res.status).toBe(code);
    expect(errorLines()).toEqual([]);
  });

  it('is refused in a replay request', async () => {
    const res = await fetch(`${base}/api/dead-letters/replay`, {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: JSON.stringify({
        tenant: 'acme',
        taskId: '00000000-0000-4000-8000-000000000000',
        configId: 'a\u0000b',
        seq: 1,
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('configId');
    expect(errorLines()).toEqual([]);
  });
});
