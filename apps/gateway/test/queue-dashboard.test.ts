import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(() => h.stop());

describe('queue dashboard (issue 6: a well-kept BullMQ dashboard behind admin auth)', () => {
  it('refuses without the admin credential and asks the browser for it', async () => {
    const res = await fetch(`${h.url}/admin/queues`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    const wrong = await fetch(`${h.url}/admin/queues`, {
      headers: { Authorization: `Basic ${btoa('ops:nope')}` },
    });
    expect(wrong.status).toBe(401);
  });

  it('serves bull-board with the dispatch and maintenance queues for the admin token', async () => {
    const page = await fetch(`${h.url}/admin/queues`, {
      headers: { Authorization: `Basic ${btoa(`ops:${ADMIN_TOKEN}`)}` },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const api = await fetch(`${h.url}/admin/queues/api/queues`, {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: Array<{ name: string }> };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['maintenance', 'tasks']);
  });
});
