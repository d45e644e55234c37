import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleHarness } from './support/console-harness.ts';
import { bearer, getJson, startSignedInConsole, type Session } from './support/http-client.ts';

// The dead-letter list takes a cursor from the URL. One the console did not issue is the caller's
// mistake (400), also when it decodes but Postgres cannot take its values; and an unknown tenant
// is a 404 as on the admin API, not an empty list that reads as "no dead letters".
let h: ConsoleHarness;
let base: string;
let browser: Session;

beforeAll(async () => {
  ({ h, base, browser } = await startSignedInConsole());
});
afterAll(() => h.close());

/** A cursor shaped like the store's (base64url JSON of created_at, task id, config id, seq). */
function forged(createdAt: string, taskId: string, configId: string, seq: number): string {
  return Buffer.from(JSON.stringify([createdAt, taskId, configId, seq]), 'utf8').toString('base64url');
}

const TIME = '2024-05-01T10:00:00.000000Z';
const TASK = '00000000-0000-4000-8000-000000000000';

describe('a forged dead-letter cursor', () => {
  it.each([
    ['a month 13', forged('2024-13-01T10:00:00.000000Z', TASK, 'cfg', 1)],
    ['a NUL in the config id', forged(TIME, TASK, 'cfg\u0000', 1)],
    ['a seq past integer', forged(TIME, TASK, 'cfg', 2 ** 40)],
    ['a task id of dashes', forged(TIME, '-'.repeat(36), 'cfg', 1)],
    ['no cursor at all', 'bogus'],
  ])('with %s is a 400 on the API and the page', async (_what, cursor) => {
    const api = await getJson<{ error: { status: string } }>(
      `${base}/api/tenants/acme/dead-letters?cursor=${cursor}`,
    );
    expect(api.status).toBe(400);
    expect(api.body.error.status).toBe('INVALID_ARGUMENT');
    const page = await fetch(`${base}/queues?tenant=acme&cursor=${cursor}`, {
      headers: { cookie: browser.cookie, accept: 'text/html' },
    });
    expect(page.status).toBe(400);
  });

  it.each([
    ['a short config id', 'cfg'],
    // 256 characters the JSON escapes: about 2,100 characters of cursor, as the store issues them.
    ['the longest config id', '\u0001'.repeat(256)],
  ])('still takes a well-formed cursor with %s', async (_what, configId) => {
    const api = await getJson(
      `${base}/api/tenants/acme/dead-letters?cursor=${forged(TIME, TASK, configId, 1)}`,
    );
    expect(api).toEqual({ status: 200, body: { deadLetters: [], nextCursor: null } });
  });
});

describe('the dead letters of an unknown tenant', () => {
  it('are a 404 on the API and the page', async () => {
    const api = await fetch(`${base}/api/tenants/no-such-tenant/dead-letters`, { headers: bearer() });
    expect(api.status).toBe(404);
    const page = await fetch(`${base}/queues?tenant=no-such-tenant`, {
      headers: { cookie: browser.cookie, accept: 'text/html' },
    });
    expect(page.status).toBe(404);
    // A known tenant without dead letters is an empty list.
    expect((await getJson(`${base}/api/tenants/globex/dead-letters`)).status).toBe(200);
  });

  // Found in review: these answered 200 with nothing in them (the HTML replay-all "succeeded" and
  // then landed on a 404), while the dead-letter list answered 404.
  it.each([
    ['GET', '/api/tasks?tenant=no-such-tenant'],
    ['GET', '/api/tenants/no-such-tenant/agents'],
    ['POST', '/api/tenants/no-such-tenant/dead-letters/replay-all'],
    ['GET', '/contexts/no-such-tenant/ctx-1'],
    ['GET', '/contexts/no-such-tenant/ctx-1/stream'],
  ])('are a 404 on %s %s too', async (method, path) => {
    expect((await fetch(`${base}${path}`, { method, headers: bearer() })).status).toBe(404);
  });

  it('are a 404 when the replay-all form names one', async () => {
    const res = await fetch(`${base}/dead-letters/replay-all`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: browser.cookie,
        origin: base,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: browser.csrf, tenant: 'no-such-tenant' }),
    });
    expect(res.status).toBe(404);
  });
});
