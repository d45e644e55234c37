import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createTestRedis } from '@switchyard/testing';
import { SharedBudget, type BudgetDecision } from '../src/rate-limit/shared-budget.ts';

// SharedBudget's promise (shared-budget.ts): the replicas together never pass the per-second
// budget, whatever the allotments; small budgets stay exact; most requests cost no Redis round
// trip. Budgets are per second, so each check runs in one window and, in the rare case it ran long
// enough to see a second one, runs again under a fresh id: never a timed assertion.
const redis = createTestRedis();
let a: Redis;
let b: Redis;
let probe: Redis;
beforeAll(async () => {
  [a, b, probe] = [redis.connect(), redis.connect(), redis.connect()];
  await Promise.all([a.ping(), b.ping(), probe.ping()]);
});
afterAll(() => redis.cleanup());

const budget = (connection: Redis, perSec: number) =>
  new SharedBudget({ redis: connection, prefix: `${redis.prefix}:rl:test`, perSec });

/** Units `id`'s window handed out, or null once the window is over. */
const handedOut = async (id: string) => {
  const n = await probe.get(`${redis.prefix}:rl:test:${id}`);
  return n === null ? null : Number(n);
};

/**
 * Runs `check` under fresh ids until one run stayed within a single window: a window opens at the
 * first ask, after the run began, and lasts a second, so a run that took less cannot straddle one.
 */
async function inOneWindow(check: (id: string) => Promise<void>): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const began = performance.now();
    const outcome = await check(randomUUID()).then(
      () => null,
      (err: unknown) => ({ err }),
    );
    if (performance.now() - began >= 900) continue;
    if (outcome) throw outcome.err;
    return;
  }
  throw new Error('every attempt straddled a window');
}

const passed = (decisions: BudgetDecision[]) => decisions.filter((d) => d.ok).length;

describe('SharedBudget', () => {
  it('keeps a small budget exact across replicas: one Redis ask per request', async () => {
    await inOneWindow(async (id) => {
      const [one, two] = [budget(a, 5), budget(b, 5)];
      const decisions: BudgetDecision[] = [];
      for (let i = 0; i < 6; i++) decisions.push(await one.take(id), await two.take(id));
      expect(passed(decisions)).toBe(5);
      expect(await handedOut(id)).toBe(5);
      const refused = decisions.at(-1)!;
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.retryAfterMs).toBeGreaterThan(0);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(1000);
      }
    });
  });

  it('never lets the replicas together pass a budget handed out in allotments', async () => {
    await inOneWindow(async (id) => {
      // 200 a second: allotments of 10.
      const replicas = [budget(a, 200), budget(b, 200), budget(a, 200)];
      const decisions: BudgetDecision[] = [];
      for (let i = 0; i < 100; i++) decisions.push(...(await Promise.all(replicas.map((r) => r.take(id)))));
      expect(passed(decisions)).toBe(200);
      expect(await handedOut(id)).toBe(200);
      // Spent: each replica now refuses from memory.
      for (const r of replicas) expect(r.take(id)).toMatchObject({ ok: false });
    });
  });

  it('decides most requests in memory, and concurrent requests share one ask', async () => {
    await inOneWindow(async (id) => {
      // 1,000 a second: allotments of 50, so 50 requests at once need exactly one.
      const replica = budget(a, 1000);
      const decisions = await Promise.all(Array.from({ length: 50 }, () => replica.take(id)));
      expect(passed(decisions)).toBe(50);
      expect(await handedOut(id)).toBe(50);
      // The next 50 come from a second allotment; the 40 after them from a third.
      for (let i = 0; i < 90; i++) await replica.take(id);
      expect(await handedOut(id)).toBe(150);
    });
  });

  it('sizes an ask by the requests waiting for it: a burst on a small budget costs one round trip', async () => {
    await inOneWindow(async (id) => {
      // 30 a second: allotments of one, yet 30 requests at once need a single ask.
      const replica = budget(a, 30);
      const connection = a as unknown as { syTakeAllotment(...args: unknown[]): Promise<unknown> };
      const ask = connection.syTakeAllotment.bind(a);
      let asks = 0;
      connection.syTakeAllotment = (...args) => {
        asks++;
        return ask(...args);
      };
      try {
        const decisions = await Promise.all(Array.from({ length: 30 }, () => replica.take(id)));
        expect(passed(decisions)).toBe(30);
        expect(asks).toBe(1);
        expect(await replica.take(id)).toMatchObject({ ok: false });
      } finally {
        connection.syTakeAllotment = ask;
      }
    });
  });

  it('hands out an allotment to the requests that asked for it, even when the reply outlasts the window', async () => {
    const id = randomUUID();
    const replica = budget(b, 1000);
    const connection = b as unknown as { syTakeAllotment(...args: unknown[]): Promise<unknown> };
    const ask = connection.syTakeAllotment.bind(b);
    let asks = 0;
    connection.syTakeAllotment = async (...args) => {
      asks++;
      const reply = await ask(...args);
      // Redis, or this process, slower than the window lasts.
      await new Promise((r) => setTimeout(r, 1100));
      return reply;
    };
    try {
      expect(await replica.take(id)).toEqual({ ok: true });
      expect(asks).toBe(1);
    } finally {
      connection.syTakeAllotment = ask;
    }
  });

  it('rejects at once while its connection has lost Redis, rather than wait for it', async () => {
    const offline = redis.connect({ lazyConnect: true });
    expect(offline.status).not.toBe('ready');
    await expect(Promise.resolve(budget(offline, 1000).take('x'))).rejects.toThrow(/Redis connection is/);
    offline.disconnect();
  });
});
