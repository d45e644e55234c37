import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';

// A browser that signed in to the dashboard keeps its Basic credentials and sends them with any
// request to it, another site's form post included: the dashboard's actions (add, retry, remove
// jobs, pause, empty a queue) must come from its own page.
let h: Harness;
let maintenance: Queue;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  maintenance = new Queue(h.keys.maintenanceQueue, {
    connection: h.redis.connect(),
    prefix: h.keys.bullPrefix,
  });
});
afterAll(async () => {
  await maintenance?.close();
  await h?.stop();
});

const basic = { Authorization: `Basic ${btoa(`ops:${ADMIN_TOKEN}`)}` };
const dashboard = (path: string, method: string, headers: Record<string, string>, body?: string) =>
  fetch(`${h.url}/admin/queues${path}`, {
    method,
    headers: { ...basic, ...headers },
    ...(body !== undefined ? { body } : {}),
  });

describe('queue dashboard actions from another site (CSRF)', () => {
  it.each([
    [
      'Origin and Sec-Fetch-Site of another site',
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    ],
    ['a sibling subdomain (same-site, not same-origin)', { 'sec-fetch-site': 'same-site' }],
    ['an Origin of another site, no Sec-Fetch-Site', { origin: 'https://evil.example' }],
    ['an opaque Origin (null)', { origin: 'null' }],
  ])('a cross-site form post is refused: %s', async (_what, headers) => {
    const before = await maintenance.getJobCounts('waiting');
    const added = await dashboard(
      '/api/queues/maintenance/add',
      'POST',
      { ...headers, 'content-type': 'text/plain' },
      JSON.stringify({ name: 'csrf', data: {} }),
    );
    expect(added.status).toBe(403);
    const paused = await dashboard('/api/queues/maintenance/pause', 'PUT', headers);
    expect(paused.status).toBe(403);
    expect(await maintenance.isPaused()).toBe(false);
    expect(await maintenance.getJobCounts('waiting')).toEqual(before);
  });

  it('the same actions from the dashboard itself, and from a client that is no browser, work', async () => {
    const host = new URL(h.url).host;
    const sameOrigin = await dashboard('/api/queues/maintenance/pause', 'PUT', {
      origin: h.url,
      'sec-fetch-site': 'same-origin',
    });
    expect(sameOrigin.status).toBe(200);
    expect(await maintenance.isPaused()).toBe(true);
    // An older browser: Origin only, naming this host.
    const resumed = await dashboard('/api/queues/maintenance/resume', 'PUT', { origin: `http://${host}` });
    expect(resumed.status).toBe(200);
    expect(await maintenance.isPaused()).toBe(false);
    // curl or a script with the bearer token: neither header.
    const script = await fetch(`${h.url}/admin/queues/api/queues/maintenance/pause`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(script.status).toBe(200);
    expect(await maintenance.isPaused()).toBe(true);
    await maintenance.resume();
  });

  it('reads from another site are not refused (they change nothing)', async () => {
    const read = await dashboard('/api/queues', 'GET', { 'sec-fetch-site': 'cross-site' });
    expect(read.status).toBe(200);
  });
});
