import { isTerminal, TaskState } from '@switchyard/protocol';
import type { CappedCount, ConsoleTaskRow, DeliveryRecord } from '@switchyard/store';
import { waitFor } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type ConsoleHarness } from './support/console-harness.ts';
import {
  bearer,
  getJson,
  login,
  session,
  startSignedInConsole,
  type Session,
} from './support/http-client.ts';

let h: ConsoleHarness;
let base: string;
let browser: Session;

beforeAll(async () => {
  ({ h, base, browser } = await startSignedInConsole());
});
afterAll(() => h.close());

type TaskList = { tasks: ConsoleTaskRow[]; nextCursor: string | null; count: CappedCount };

/** The google.rpc.Status every JSON error of the console answers with, as the admin API's do. */
function statusBody(code: number, status: string, message: unknown) {
  return {
    error: {
      code,
      status,
      message,
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: status, domain: 'switchyard.console' },
      ],
    },
  };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

function post(path: string, fields: Record<string, string>, headers: Record<string, string>) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form(fields),
  });
}

describe('ops endpoints', () => {
  it('answers /healthz, /readyz and /metrics without credentials', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await getJson<{ status: string; checks: Record<string, boolean> }>(`${base}/readyz`, {});
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ postgres: true, migrations: true, redis: true, accepting: true });
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
  });
});

describe('authentication', () => {
  it('sends a page request without a session to the login page', async () => {
    const res = await fetch(`${base}/tasks?tenant=acme`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/tasks?tenant=acme')}`);
  });

  it.each([
    ['GET', '/api/tasks?tenant=acme'],
    ['GET', '/api/queues'],
    ['GET', '/tasks/acme/00000000-0000-4000-8000-000000000000/stream'],
    ['POST', '/api/tasks/acme/00000000-0000-4000-8000-000000000000/cancel'],
    ['POST', '/dead-letters/replay-all'],
  ])('refuses %s %s with 401 and no data', async (method, path) => {
    const res = await fetch(`${base}${path}`, { method, redirect: 'manual' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
    expect(await res.json()).toEqual(statusBody(401, 'UNAUTHENTICATED', expect.stringContaining('log in')));
  });

  it('refuses a wrong bearer token even next to a valid session cookie', async () => {
    const res = await fetch(`${base}/api/queues`, {
      headers: { ...bearer('wrong-token-wrong-token'), cookie: browser.cookie },
    });
    expect(res.status).toBe(401);
  });

  // Found in review: only `Bearer <one word>` counted as a credential; any other Authorization
  // header fell through to the cookie.
  it.each([
    `Bearer ${ADMIN_TOKEN} extra`,
    'Bearer',
    `Basic ${Buffer.from(`x:${ADMIN_TOKEN}`).toString('base64')}`,
  ])('refuses Authorization: %s even next to a valid session cookie', async (authorization) => {
    const res = await fetch(`${base}/api/queues`, { headers: { authorization, cookie: browser.cookie } });
    expect(res.status).toBe(401);
  });

  it('accepts the admin token as a bearer token', async () => {
    expect((await getJson(`${base}/api/tenants`)).status).toBe(200);
  });

  it('logs in with the admin token: an HttpOnly, SameSite=Strict cookie that is not the token', async () => {
    const res = await login(base);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/tasks');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^sy_console=v1\./);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toContain(ADMIN_TOKEN);
  });

  it('refuses a wrong token at login and sets no cookie', async () => {
    const res = await login(base, 'not-the-admin-token-at-all');
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await res.text()).toContain('That is not the admin token.');
  });

  it('refuses a login form posted from another origin', async () => {
    const res = await fetch(`${base}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.test' },
      body: form({ token: ADMIN_TOKEN }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a tampered session cookie', async () => {
    const tampered = browser.cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const res = await fetch(`${base}/tasks`, {
      redirect: 'manual',
      headers: { cookie: tampered, accept: 'text/html' },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/login/);
  });

  it('serves pages to a session and logs out with the CSRF token', async () => {
    const own = await session(base);
    const page = await fetch(`${base}/tasks`, { headers: { cookie: own.cookie, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const out = await post('/logout', { _csrf: own.csrf }, { cookie: own.cookie, origin: base });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/sy_console=;/);
    // Found in review: logout only cleared the browser's cookie; a copy of it went on working
    // until it expired. It is refused now, and the login page shows its form to it (no loop).
    const copy = await fetch(`${base}/api/tenants`, { headers: { cookie: own.cookie } });
    expect(copy.status).toBe(401);
    const again = await fetch(`${base}/tasks`, {
      redirect: 'manual',
      headers: { cookie: own.cookie, accept: 'text/html' },
    });
    expect(again.headers.get('location')).toMatch(/^\/login/);
    const login = await fetch(`${base}/login`, {
      redirect: 'manual',
      headers: { cookie: own.cookie, accept: 'text/html' },
    });
    expect(login.status).toBe(200);
    // Other sessions are not touched.
    expect((await fetch(`${base}/api/tenants`, { headers: { cookie: browser.cookie } })).status).toBe(200);
  });
});

describe('CSRF', () => {
  let taskId: string;
  beforeAll(async () => {
    taskId = (await h.send('acme', 'echo', 'csrf target')).id;
  });

  it('refuses a cookie-authenticated POST without the CSRF token', async () => {
    const res = await post(`/tasks/acme/${taskId}/cancel`, {}, { cookie: browser.cookie, origin: base });
    expect(res.status).toBe(403);
    expect((await h.tasks.getTaskRecord('acme', taskId))?.state).toBe(TaskState.SUBMITTED);
  });

  it('refuses a cookie-authenticated POST from another origin, even with the token', async () => {
    const res = await post(
      `/tasks/acme/${taskId}/cancel`,
      { _csrf: browser.csrf },
      { cookie: browser.cookie, origin: 'http://evil.test' },
    );
    expect(res.status).toBe(403);
    const site = await post(
      `/tasks/acme/${taskId}/cancel`,
      { _csrf: browser.csrf },
      { cookie: browser.cookie, 'sec-fetch-site': 'cross-site' },
    );
    expect(site.status).toBe(403);
    expect((await h.tasks.getTaskRecord('acme', taskId))?.state).toBe(TaskState.SUBMITTED);
  });

  it("refuses another session's CSRF token", async () => {
    const other = await session(base);
    const res = await post(
      `/tasks/acme/${taskId}/cancel`,
      { _csrf: other.csrf },
      { cookie: browser.cookie, origin: base },
    );
    expect(res.status).toBe(403);
  });
});

describe('task list filters (JSON API)', () => {
  const ids: Record<string, string> = {};
  const contextId = `ctx-${crypto.randomUUID()}`;
  beforeAll(async () => {
    ids.a = (await h.send('globex', 'echo', 'one', { contextId })).id;
    ids.b = (await h.send('globex', 'booking', 'two', { contextId })).id;
    ids.c = (await h.send('globex', 'echo', 'three')).id;
    ids.other = (await h.send('acme', 'echo', 'elsewhere')).id;
    await fetch(`${base}/api/tasks/globex/${ids.c}/cancel`, { method: 'POST', headers: bearer() });
  });
  const list = async (query: string) => (await getJson<TaskList>(`${base}/api/tasks?${query}`)).body;

  it('lists one tenant only, newest status first', async () => {
    const page = await list('tenant=globex');
    expect(page.tasks.map((t) => t.id)).toEqual([ids.c, ids.b, ids.a]);
    expect(page.count).toEqual({ count: 3, capped: false });
    expect(page.tasks.every((t) => t.tenantId === 'globex')).toBe(true);
  });

  it('filters by agent, state and context', async () => {
    expect((await list('tenant=globex&agent=echo')).tasks.map((t) => t.id)).toEqual([ids.c, ids.a]);
    expect((await list('tenant=globex&state=canceled')).tasks.map((t) => t.id)).toEqual([ids.c]);
    expect(
      (await list('tenant=globex&state=TASK_STATE_SUBMITTED&agent=booking')).tasks.map((t) => t.id),
    ).toEqual([ids.b]);
    expect((await list(`tenant=globex&context=${contextId}`)).tasks.map((t) => t.id)).toEqual([ids.b, ids.a]);
  });

  it('searches by task id and by context id', async () => {
    expect((await list(`tenant=globex&q=${ids.a}`)).tasks.map((t) => t.id)).toEqual([ids.a]);
    expect((await list(`tenant=globex&q=${contextId}`)).tasks.map((t) => t.id)).toEqual([ids.b, ids.a]);
    // A task id of another tenant is not found through this tenant.
    expect((await list(`tenant=globex&q=${ids.other}`)).tasks).toEqual([]);
  });

  it('pages with a cursor and limit', async () => {
    const first = await list('tenant=globex&limit=2');
    expect(first.tasks).toHaveLength(2);
    expect(first.nextCursor).toBeTruthy();
    const second = await list(`tenant=globex&limit=2&cursor=${first.nextCursor}`);
    expect(second.tasks.map((t) => t.id)).toEqual([ids.a]);
    expect(second.nextCursor).toBeNull();
  });

  it('answers 400 for a bad filter or cursor', async () => {
    const state = await getJson(`${base}/api/tasks?tenant=globex&state=sleeping`);
    expect(state.status).toBe(400);
    expect(state.body).toEqual(
      statusBody(400, 'INVALID_ARGUMENT', expect.stringContaining('state must be one of')),
    );
    expect((await getJson(`${base}/api/tasks?tenant=globex&cursor=bogus`)).status).toBe(400);
    expect((await getJson(`${base}/api/tasks`)).status).toBe(400);
  });

  it('finds a task id across tenants', async () => {
    const res = await fetch(`${base}/find?id=${ids.other}`, { redirect: 'manual', headers: bearer() });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/tasks/acme/${ids.other}`);
    const missing = await fetch(`${base}/find?id=${crypto.randomUUID()}`, {
      redirect: 'manual',
      headers: bearer(),
    });
    expect(missing.status).toBe(404);
  });

  it('renders the filtered list page with escaped content', async () => {
    const evil = await h.send('globex', 'echo', '<script>alert(1)</script>');
    const page = await fetch(`${base}/tasks/globex/${evil.id}`, {
      headers: { cookie: browser.cookie, accept: 'text/html' },
    });
    const text = await page.text();
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).not.toContain('<script>alert(1)');
    const list = await fetch(`${base}/tasks?tenant=globex&agent=echo`, {
      headers: { cookie: browser.cookie, accept: 'text/html' },
    });
    const html = await list.text();
    expect(html).toContain(`data-task-id="${ids.a}"`);
    expect(html).not.toContain(`data-task-id="${ids.b}"`);
  });
});

describe('actions', () => {
  it('cancels a task from the page form and reports a second cancel as not cancelable', async () => {
    const task = await h.send('acme', 'echo', 'cancel me');
    const res = await post(
      `/tasks/acme/${task.id}/cancel`,
      { _csrf: browser.csrf },
      { cookie: browser.cookie, origin: base },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/tasks/acme/${task.id}?notice=canceled`);
    expect((await h.tasks.getTaskRecord('acme', task.id))?.state).toBe(TaskState.CANCELED);
    const again = await post(
      `/tasks/acme/${task.id}/cancel`,
      { _csrf: browser.csrf },
      { cookie: browser.cookie, origin: base },
    );
    expect(again.headers.get('location')).toBe(`/tasks/acme/${task.id}?notice=not-cancelable`);
    const api = await fetch(`${base}/api/tasks/acme/${task.id}/cancel`, {
      method: 'POST',
      headers: bearer(),
    });
    expect(api.status).toBe(409);
    expect(await api.json()).toEqual(
      statusBody(409, 'FAILED_PRECONDITION', 'the task is already in a terminal state'),
    );
  });

  it('answers 404 for a task of another tenant', async () => {
    const task = await h.send('acme', 'echo', 'not yours');
    const res = await fetch(`${base}/api/tasks/globex/${task.id}/cancel`, {
      method: 'POST',
      headers: bearer(),
    });
    expect(res.status).toBe(404);
    expect((await h.tasks.getTaskRecord('acme', task.id))?.state).toBe(TaskState.SUBMITTED);
  });

  it('shows a dead-lettered delivery and replays it', async () => {
    const task = await h.send('acme', 'echo', 'push me', { pushUrl: 'http://127.0.0.1:9/hook' });
    const claimed = await h.outbox.claimDueDeliveries({ workerId: 'test-pusher', limit: 10, lockMs: 60_000 });
    const delivery = claimed.find((d) => d.taskId === task.id);
    if (!delivery) throw new Error('no delivery claimed');
    await h.outbox.markFailed({
      ...delivery,
      workerId: 'test-pusher',
      error: 'receiver answered 500',
      status: 500,
      dead: true,
    });

    const detail = await getJson<{ deliveries: DeliveryRecord[] }>(`${base}/api/tasks/acme/${task.id}`);
    expect(detail.body.deliveries.map((d) => d.status)).toEqual(['dead']);
    const queues = await getJson<{ deadLetters: Array<{ tenantId: string; deadLetters: CappedCount }> }>(
      `${base}/api/queues`,
    );
    expect(queues.body.deadLetters.find((t) => t.tenantId === 'acme')?.deadLetters.count).toBe(1);
    const page = await (
      await fetch(`${base}/queues`, { headers: { cookie: browser.cookie, accept: 'text/html' } })
    ).text();
    expect(page).toContain('receiver answered 500');

    const res = await post(
      '/dead-letters/replay',
      {
        _csrf: browser.csrf,
        tenant: 'acme',
        taskId: task.id,
        configId: delivery.configId,
        seq: String(delivery.seq),
        back: `/tasks/acme/${task.id}`,
      },
      { cookie: browser.cookie, origin: base },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/tasks/acme/${task.id}?notice=replayed`);
    const after = await h.outbox.listDeliveries('acme', task.id);
    expect(after.map((d) => [d.status, d.attempts])).toEqual([['pending', 0]]);
    const again = await fetch(`${base}/api/dead-letters/replay`, {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: JSON.stringify({
        tenant: 'acme',
        taskId: task.id,
        configId: delivery.configId,
        seq: delivery.seq,
      }),
    });
    expect(await again.json()).toEqual({ replayed: false });
  });

  // Found in review: `/.//evil.example/x` passed the look at its first characters, and was then
  // resolved to `//evil.example/x`, another site, when the notice was added to it.
  it('sends an action back only to a path on the console, as the browser resolves it', async () => {
    const res = await post(
      '/dead-letters/replay',
      {
        _csrf: browser.csrf,
        tenant: 'acme',
        taskId: '00000000-0000-4000-8000-000000000000',
        configId: 'none',
        seq: '1',
        back: '/.//evil.example/x',
      },
      { cookie: browser.cookie, origin: base },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(
      '/tasks/acme/00000000-0000-4000-8000-000000000000?notice=not-dead',
    );
  });

  // Found in review: the timeline reads at most 1,000 events (500 messages, 1,000 chunks), and
  // the API gave a long task's first thousand as if they were the whole.
  it('says when a task has more than its timeline read', async () => {
    const small = await h.send('acme', 'echo', 'short');
    const long = await h.send('acme', 'echo', 'long');
    await h.db.pool.query(
      `INSERT INTO task_events (tenant_id, task_id, seq, kind, payload)
       SELECT 'acme', $1::uuid, g, 'statusUpdate',
              jsonb_build_object('statusUpdate', jsonb_build_object('taskId', $1::text, 'contextId', 'c',
                'status', jsonb_build_object('state', 'TASK_STATE_WORKING')))
       FROM generate_series(2, 1100) g`,
      [long.id],
    );
    await h.db.pool.query(`UPDATE tasks SET version = 1100 WHERE tenant_id = 'acme' AND id = $1::uuid`, [
      long.id,
    ]);
    const detail = (id: string) =>
      getJson<{ truncated: boolean; timeline: unknown[] }>(`${base}/api/tasks/acme/${id}`);
    expect((await detail(small.id)).body.truncated).toBe(false);
    const longDetail = (await detail(long.id)).body;
    expect(longDetail.truncated).toBe(true);
    expect(longDetail.timeline.length).toBeGreaterThan(1000);
  });

  it('serves a task timeline with the creation, the message and its state', async () => {
    const task = await h.send('acme', 'echo', 'hello timeline');
    const detail = await getJson<{ task: { state: string }; timeline: Array<{ kind: string; key: string }> }>(
      `${base}/api/tasks/acme/${task.id}`,
    );
    expect(detail.body.task.state).toBe(TaskState.SUBMITTED);
    expect(detail.body.timeline.map((e) => [e.kind, e.key])).toEqual([
      ['created', 'e1'],
      ['message', 'm0'],
    ]);
  });

  it('streams a running task live over SSE until it finishes', async () => {
    h.startWorker();
    const task = await h.send('acme', 'echo', 'stream me');
    const res = await fetch(`${base}/tasks/acme/${task.id}/stream?after=0&msg=0`, { headers: bearer() });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text(); // the server ends the stream once the task is terminal
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events).toContain('entry');
    expect(events).toContain('task');
    expect(events.at(-1)).toBe('end');
    const record = await waitFor(async () => {
      const r = await h.tasks.getTaskRecord('acme', task.id);
      return r && isTerminal(r.state) ? r : null;
    });
    expect(text).toContain(`id: ${record.version}`);
  });

  // Found in review: the stream of an unknown task answered 200 and then ended, and the page said
  // "Up to date · task finished".
  it('answers 404 for the stream of a task that does not exist', async () => {
    const res = await fetch(`${base}/tasks/acme/00000000-0000-4000-8000-000000000000/stream`, {
      headers: bearer(),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
  });
});
