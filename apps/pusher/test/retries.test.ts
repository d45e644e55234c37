import { startReceiver } from './receiver.ts';
import { waitFor } from '@switchyard/testing';
import { describe, expect, it, vi } from 'vitest';
import { appendEvents, createTask, deliveriesOf, newTenant, usePusherSuite } from './pusher-fixtures.ts';

const suite = usePusherSuite();
const { scope } = suite;

describe('retries (digest §8: retries with exponential backoff; ARCHITECTURE.md §7)', () => {
  it('retries a failing receiver with growing backoff until it answers 2xx', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    suite.receiver.respond = (_req, i) => ({ status: i < 3 ? 500 : 200 });
    // Jitter pinned to its ceiling, so the backoffs are exactly 50, 100 and 200 ms.
    await scope
      .pusher({ retry: { maxAttempts: 8, baseMs: 50, maxMs: 10_000 }, random: () => 0.999_999, pollMs: 20 })
      .start();

    await waitFor(
      async () => (await deliveriesOf(suite.env, tenantId, task.taskId))[0]?.status === 'delivered',
      {
        what: 'delivered',
      },
    );

    expect(suite.receiver.requests).toHaveLength(4);
    expect(new Set(suite.receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const at = suite.receiver.requests.map((r) => r.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    // Lower bounds only (a retry can never come early): each retry waits at least its own doubled
    // backoff. No comparison between gaps: on a loaded machine the first can take longer than the
    // last (it did in CI: 267 ms against 227).
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(gaps[2]).toBeGreaterThanOrEqual(195);
    const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 4, lastStatus: 200 });
  });

  it("a retry is due by the database's clock: a pusher whose clock runs behind does not retry at once", async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    suite.receiver.respond = () => ({ status: 503 });
    const pusher = scope.pusher({
      retry: { maxAttempts: 8, baseMs: 10_000, maxMs: 10_000 },
      random: () => 0.5,
    });
    const realNow = Date.now.bind(Date);
    const behind = vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 120_000);
    try {
      expect(await pusher.deliverOnce()).toMatchObject([{ outcome: 'retry' }]);
      // Two minutes behind, a backoff of 5 s set from this clock was due long ago.
      expect(await pusher.deliverOnce()).toEqual([]);
    } finally {
      behind.mockRestore();
    }
    expect(suite.receiver.requests).toHaveLength(1);
    const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 503 });
    expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
  });

  it('dead-letters after PUSH_MAX_ATTEMPTS with the last error kept, and a replay sends it again', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, {
      id: 'hook',
      url: `${suite.receiver.origin}/x`,
      token: 'tok-secret',
    });
    suite.receiver.respond = () => ({ status: 503 });
    await scope.pusher({ retry: { maxAttempts: 3, baseMs: 10, maxMs: 20 } }).start();

    const page = await waitFor(
      async () => {
        const dead = await suite.env.outbox.listDeadLetters({ tenantId, limit: 10 });
        return dead.deliveries.length > 0 && dead;
      },
      { what: 'a dead letter' },
    );

    expect(suite.receiver.requests).toHaveLength(3);
    expect(page.deliveries).toHaveLength(1);
    expect(page.deliveries[0]).toMatchObject({
      taskId: task.taskId,
      configId: 'hook',
      seq: 1,
      status: 'dead',
      attempts: 3,
      lastStatus: 503,
      lastError: 'HTTP 503',
    });
    expect(page.deliveries[0]!.lastError).not.toContain('tok-secret');

    suite.receiver.respond = () => ({ status: 202 });
    expect(
      await suite.env.outbox.replayDeadLetter({ tenantId, taskId: task.taskId, configId: 'hook', seq: 1 }),
    ).toBe(true);
    await waitFor(
      async () => (await deliveriesOf(suite.env, tenantId, task.taskId))[0]?.status === 'delivered',
      {
        what: 'the replay',
      },
    );
    expect(suite.receiver.requests).toHaveLength(4);
    expect(suite.receiver.requests[3]!.headers['webhook-id']).toBe(
      suite.receiver.requests[0]!.headers['webhook-id'],
    );
    expect((await suite.env.outbox.listDeadLetters({ tenantId, limit: 10 })).deliveries).toEqual([]);
  });

  it('unblocks the next events of a config once its head is dead-lettered', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await appendEvents(suite.env, tenantId, task, 2);
    suite.receiver.respond = (req) => ({ status: req.seq === 1 ? 500 : 204 });
    await scope.pusher({ retry: { maxAttempts: 2, baseMs: 10, maxMs: 20 } }).start();

    await waitFor(
      async () => (await deliveriesOf(suite.env, tenantId, task.taskId)).every((r) => r.status !== 'pending'),
      { what: 'settled' },
    );
    expect((await deliveriesOf(suite.env, tenantId, task.taskId)).map((r) => r.status)).toEqual([
      'dead',
      'delivered',
      'delivered',
    ]);
    expect(suite.receiver.requests.map((r) => r.seq)).toEqual([1, 1, 2, 3]);
  });

  it('once a receiver has used a whole budget, the events queued behind get one attempt each', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await appendEvents(suite.env, tenantId, task, 3);
    // Away for the first event's budget and the next event's one attempt; then back.
    suite.receiver.respond = (_req, i) => ({ status: i < 4 ? 503 : 204 });
    await scope.pusher({ retry: { maxAttempts: 3, baseMs: 10, maxMs: 20 } }).start();

    await waitFor(
      async () => (await deliveriesOf(suite.env, tenantId, task.taskId)).every((r) => r.status !== 'pending'),
      { what: 'settled' },
    );
    const rows = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['dead', 3],
      ['dead', 3],
      ['delivered', 3],
      ['delivered', 3],
    ]);
    expect(suite.receiver.requests.map((r) => r.seq)).toEqual([1, 1, 1, 2, 3, 4]);
  });

  it('a receiver that is there (429 with Retry-After) leaves the events behind their budgets', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await appendEvents(suite.env, tenantId, task, 1);
    // Shedding load for the first event's budget and the next event's first attempt; then back.
    suite.receiver.respond = (_req, i) =>
      i < 3 ? { status: 429, headers: { 'retry-after': '0' } } : { status: 204 };
    await scope.pusher({ retry: { maxAttempts: 2, baseMs: 10, maxMs: 20 } }).start();

    await waitFor(
      async () => (await deliveriesOf(suite.env, tenantId, task.taskId)).every((r) => r.status !== 'pending'),
      { what: 'settled' },
    );
    const rows = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['dead', 2],
      ['delivered', 2],
    ]);
  });

  it('counts a timeout as a failed attempt', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/slow` });
    suite.receiver.respond = () => ({ status: 204, delayMs: 1000 });
    const [result] = await scope
      .pusher({ timeoutMs: 150, retry: { maxAttempts: 1, baseMs: 10, maxMs: 20 } })
      .deliverOnce();
    expect(result).toEqual({ outcome: 'dead', error: 'timed out after 150 ms' });
    const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(row).toMatchObject({ status: 'dead', lastError: 'timed out after 150 ms', lastStatus: null });
  });

  it('dead-letters at once on 410 Gone, which no retry would change', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    suite.receiver.respond = () => ({ status: 410 });
    const [result] = await scope.pusher({ retry: { maxAttempts: 8, baseMs: 10, maxMs: 20 } }).deliverOnce();
    expect(result).toMatchObject({ outcome: 'dead', error: expect.stringContaining('HTTP 410') });
    const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(row).toMatchObject({ status: 'dead', attempts: 1, lastStatus: 410 });
  });

  it.each([
    [429, '7'],
    [503, new Date(Date.now() + 60_000).toUTCString()],
  ])('waits as long as a %i asks with Retry-After, up to the longest backoff', async (status, retryAfter) => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    suite.receiver.respond = () => ({ status, headers: { 'retry-after': retryAfter } });
    const before = Date.now();
    const [result] = await scope
      .pusher({ retry: { maxAttempts: 8, baseMs: 10, maxMs: 30_000 }, random: () => 0.5 })
      .deliverOnce();
    expect(result).toMatchObject({ outcome: 'retry' });
    const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
    const waitMs = row!.nextAttemptAt.getTime() - before;
    // 7 s asked: about 7 s, not the 5 ms backoff; a minute asked: the 30 s longest backoff.
    if (retryAfter === '7') expect(waitMs).toBeGreaterThan(6_000);
    else expect(waitMs).toBeGreaterThan(25_000);
    expect(waitMs).toBeLessThan(31_000);
  });

  it('counts a refused connection as a failed attempt', async () => {
    const { tenantId } = await newTenant(suite.env);
    const closed = await startReceiver();
    const url = `${closed.origin}/x`;
    await closed.close();
    await createTask(suite.env, tenantId, { id: 'hook', url });
    const [result] = await scope.pusher().deliverOnce();
    expect(result).toMatchObject({ outcome: 'retry', error: expect.stringContaining('ECONNREFUSED') });
  });
});
