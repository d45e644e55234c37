import { PARKED_RELEASE_AFTER_MS } from '@switchyard/engine';
import { RevocationChannel, type Revocation } from '@switchyard/events';
import { TaskState } from '@switchyard/protocol';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantView } from '../src/tenants/tenant-overview.ts';
import type { ConsoleHarness } from './support/console-harness.ts';
import { bearer, getJson, startSignedInConsole, type Session } from './support/http-client.ts';

// The tenants view: each tenant's backlog and run cap (the admin API's maxRunning), what the cap
// holds right now in Redis, setting the cap from the page and the JSON API, and disabling and
// enabling a tenant, announced to the gateways before the answer as the admin API does.

let h: ConsoleHarness;
let base: string;
let browser: Session;

beforeAll(async () => {
  ({ h, base, browser } = await startSignedInConsole());
});
afterAll(() => h.close());

const tenantsOf = async () => (await getJson<{ tenants: TenantView[] }>(`${base}/api/tenants`)).body.tenants;

function patch(tenantId: string, body: unknown) {
  return fetch(`${base}/api/tenants/${tenantId}`, {
    method: 'PATCH',
    headers: { ...bearer(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A form the page posts, from the signed-in browser session (its cookie and CSRF token). */
function postForm(path: string, fields: Record<string, string> = {}, s: Session = browser) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie, origin: base },
    body: new URLSearchParams({ _csrf: s.csrf, ...fields }),
  });
}

const postCap = (tenantId: string, cap: string, s: Session = browser) =>
  postForm(`/tenants/${tenantId}/run-cap`, { cap }, s);

describe('tenants view', () => {
  it('lists every tenant with its cap, backlog and run counts', async () => {
    await h.send('globex', 'echo', 'waiting for a worker');
    const tenants = await tenantsOf();
    expect(tenants.map((t) => t.id)).toEqual(['acme', 'globex']);
    const globex = tenants.find((t) => t.id === 'globex')!;
    expect(globex).toMatchObject({
      name: 'globex Inc.',
      maxRunning: null,
      disabledAt: null,
      queued: { count: 1, capped: false },
      runs: { running: 0, parked: 0 },
    });
  });

  it('sets a cap over the JSON API and refuses bad values without changing it', async () => {
    const set = await patch('acme', { maxRunning: 2 });
    expect(set.status).toBe(200);
    expect(((await set.json()) as TenantView).maxRunning).toBe(2);
    expect((await h.admin.getTenant('acme'))?.maxRunning).toBe(2);

    for (const bad of [
      { maxRunning: -1 },
      { maxRunning: 1.5 },
      { maxRunning: '3' },
      {},
      { maxRunning: 2_000_000 },
    ]) {
      const res = await patch('acme', bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /maxRunning must be/,
      );
    }
    expect((await h.admin.getTenant('acme'))?.maxRunning).toBe(2);

    expect((await patch('initech', { maxRunning: 1 })).status).toBe(404);
    expect((await patch('acme', { maxRunning: null })).status).toBe(200);
    expect((await h.admin.getTenant('acme'))?.maxRunning).toBeNull();
  });

  it('sets a cap from the page form, in the CLI words, with the CSRF token', async () => {
    const res = await postCap('globex', 'none');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/tenants?notice=run-cap-set');
    expect((await h.admin.getTenant('globex'))?.maxRunning).toBe(0);

    expect((await postCap('globex', '0')).status).toBe(400);
    expect((await postCap('globex', 'lots')).status).toBe(400);
    const withoutToken = await postCap('globex', '5', { cookie: browser.cookie, csrf: 'forged' });
    expect(withoutToken.status).toBe(403);
    expect((await h.admin.getTenant('globex'))?.maxRunning).toBe(0);

    expect((await postCap('globex', '7')).status).toBe(303);
    const page = await fetch(`${base}/tenants?notice=run-cap-set`, {
      headers: { cookie: browser.cookie, accept: 'text/html' },
    });
    const text = await page.text();
    expect(text).toContain('Run cap saved.');
    expect(text).toMatch(/<tr data-tenant="globex">[\s\S]*?value="7"[\s\S]*?at most 7 runs at once/);
    expect(text).toMatch(/<tr data-tenant="acme">[\s\S]*?value="default"/);

    expect((await postCap('globex', 'default')).status).toBe(303);
    expect((await h.admin.getTenant('globex'))?.maxRunning).toBeNull();
  });

  it("shows a capped tenant's run going on and the runs parked behind it, from a real worker", async () => {
    // A tenant no worker has read yet, so its cap applies from its first task.
    await h.admin.ensureTenant({ id: 'initech', name: 'Initech' });
    await h.admin.upsertAgent({
      tenantId: 'initech',
      id: 'slow-long',
      card: { name: 'slow-long', description: 'runs for a minute', version: '1.0.0' },
      executor: 'slow',
      settings: { delayMs: 60_000, steps: 60, progress: 'status' },
    });
    expect((await patch('initech', { maxRunning: 1 })).status).toBe(200);
    h.startWorker();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.send('initech', 'slow-long', `run ${i}`)).id);

    await waitFor(
      async () => {
        const initech = (await tenantsOf()).find((t) => t.id === 'initech');
        return initech?.runs?.running === 1 && initech.runs.parked === 2;
      },
      { timeoutMs: 15_000 },
    );
    const page = await fetch(`${base}/tenants`, { headers: { cookie: browser.cookie, accept: 'text/html' } });
    const row = /<tr data-tenant="initech">[\s\S]*?<\/tr>/.exec(await page.text())?.[0] ?? '';
    expect(row).toMatch(/data-metric="running">1</);
    expect(row).toMatch(/data-metric="parked">2</);
    expect(row).toContain('at most 1 run at once');

    // No cap any more: the parked runs come back once the worker has read it (a few seconds),
    // not after their own delays (10 s at least), and all three run.
    const parkedIds = await h.redis.connect().zrange(h.keys.tenantParkedRuns('initech'), '0', '-1');
    expect(parkedIds).toHaveLength(2);
    expect((await patch('initech', { maxRunning: 0 })).status).toBe(200);
    for (const id of parkedIds) {
      const job = await h.console.services.queue.queue.getJob(id);
      expect(job?.delay).toBe(PARKED_RELEASE_AFTER_MS);
    }
    await waitFor(
      async () =>
        (await Promise.all(ids.map((id) => h.tasks.getTaskRecord('initech', id)))).every(
          (r) => r?.state === TaskState.WORKING,
        ),
      { timeoutMs: 20_000 },
    );
  });
});

describe('disabling and enabling a tenant', () => {
  // A gateway's side of the revocation channel: what it applied, and when.
  const applied: Revocation[] = [];
  let gateway: RevocationChannel;
  beforeAll(async () => {
    gateway = new RevocationChannel({
      redis: h.redis.connect(),
      subscriber: h.redis.connect(),
      keys: h.keys,
      apply: (r) => applied.push(r),
      resync: () => undefined,
      log: silentLogger(),
    });
    await gateway.start();
  });
  afterAll(() => gateway.stop());

  const apiPost = (path: string) => fetch(`${base}/api${path}`, { method: 'POST', headers: bearer() });

  it('holds on every gateway before the JSON API answers, and undoes it', async () => {
    const disabled = await apiPost('/tenants/globex/disable');
    expect(disabled.status).toBe(200);
    const body = (await disabled.json()) as TenantView & { confirmed: boolean };
    expect(body.disabledAt).not.toBeNull();
    // Every subscriber (this gateway's side and the console's own) acked within the time limit.
    expect(body.confirmed).toBe(true);
    // Applied by the gateway before the console answered: no wait here.
    expect(applied).toContainEqual({ kind: 'tenant', tenantId: 'globex', disabled: true });
    expect((await h.admin.getTenant('globex'))?.disabledAt).toBeInstanceOf(Date);

    const enabled = await apiPost('/tenants/globex/enable');
    expect(((await enabled.json()) as TenantView).disabledAt).toBeNull();
    expect(applied.at(-1)).toEqual({ kind: 'tenant', tenantId: 'globex', disabled: false });
    expect((await h.admin.getTenant('globex'))?.disabledAt).toBeNull();
  });

  it('answers 404 for an unknown tenant and announces nothing', async () => {
    const before = applied.length;
    expect((await apiPost('/tenants/nobody/disable')).status).toBe(404);
    expect((await apiPost('/tenants/Not_A_Slug/disable')).status).toBe(404);
    expect(applied).toHaveLength(before);
  });

  it('works from the page with the CSRF token, and the page says so', async () => {
    const post = (action: string, csrf = browser.csrf) =>
      postForm(`/tenants/acme/${action}`, {}, { cookie: browser.cookie, csrf });
    expect((await post('disable', 'forged')).status).toBe(403);
    expect((await h.admin.getTenant('acme'))?.disabledAt).toBeNull();

    const res = await post('disable');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/tenants?notice=tenant-disabled');
    const page = await fetch(`${base}/tenants?notice=tenant-disabled`, {
      headers: { cookie: browser.cookie, accept: 'text/html' },
    });
    const text = await page.text();
    expect(text).toContain('Tenant disabled:');
    const row = /<tr data-tenant="acme">[\s\S]*?<\/tr>/.exec(text)?.[0] ?? '';
    expect(row).toContain('data-status="disabled"');
    expect(row).toContain('action="/tenants/acme/enable"');

    expect((await post('enable')).headers.get('location')).toBe('/tenants?notice=tenant-enabled');
    expect((await h.admin.getTenant('acme'))?.disabledAt).toBeNull();
  });

  it('commits and says so when the gateways cannot be told (Redis away), instead of failing', async () => {
    const { services } = h.console;
    const real = services.revocations;
    services.revocations = { ...real, announce: () => Promise.reject(new Error('Redis is away')) };
    try {
      const api = await apiPost('/tenants/globex/disable');
      expect(api.status).toBe(200);
      expect(((await api.json()) as { confirmed: boolean }).confirmed).toBe(false);
      expect((await h.admin.getTenant('globex'))?.disabledAt).toBeInstanceOf(Date);

      const form = await postForm('/tenants/globex/enable');
      expect(form.headers.get('location')).toBe('/tenants?notice=tenant-enabled-unconfirmed');
      expect((await h.admin.getTenant('globex'))?.disabledAt).toBeNull();
    } finally {
      services.revocations = real;
    }
  });
});
