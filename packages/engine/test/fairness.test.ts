import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal } from '@switchyard/protocol';
import type { Caller } from '@switchyard/store';
import { waitFor } from '@switchyard/testing';
import { startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
const flooder: Caller = { tenantId: 'acme', principal: 'flooder', admin: false };
const quiet: Caller = { tenantId: 'evil', principal: 'quiet', admin: false };

beforeAll(async () => {
  p = await startPlatform();
  for (const tenantId of ['acme', 'evil']) {
    await p.slowAgent('quick', { delayMs: 5 }, tenantId);
  }
});
afterAll(() => p.close());

describe('tenant fairness (issue: one tenant flood cannot starve another)', () => {
  it('counts each new task once in its tenant backlog: retries and refused sends count nothing', async () => {
    // Before the flood below, in its tenant: the counter starts at zero.
    const caller: Caller = { tenantId: 'acme', principal: 'counter', admin: false };
    const agent = (await p.admin.getAgent('acme', 'quick'))!;
    const redis = p.redis.connect();
    const backlog = async () => Number(await redis.get(p.keys.tenantBacklog('acme')));
    const once = userMessage('once');
    // No worker runs yet, so nothing is counted out: the counter is the number of dispatches.
    await Promise.all(
      Array.from({ length: 5 }, () =>
        p.service.send(caller, agent, { message: once, configuration: { returnImmediately: true } }),
      ),
    );
    await p.service.send(caller, agent, {
      message: userMessage('other'),
      configuration: { returnImmediately: true },
    });
    // The same messageId with another text is refused after the counter was asked.
    await expect(
      p.service.send(caller, agent, {
        message: { ...once, parts: [{ text: 'changed' }] },
        configuration: { returnImmediately: true },
      }),
    ).rejects.toThrow();
    await waitFor(async () => (await backlog()) === 2, { what: 'the backlog counter to settle at 2' });
    // Released slots settle shortly after their sends answer; give them time to overshoot.
    await new Promise((r) => setTimeout(r, 200));
    expect(await backlog()).toBe(2);
  });

  it("a quiet tenant's tasks overtake another tenant's backlog of 1,000", async () => {
    const floodAgent = (await p.admin.getAgent('acme', 'quick'))!;
    const quietAgent = (await p.admin.getAgent('evil', 'quick'))!;
    const flood: string[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const sent = await Promise.all(
        Array.from({ length: 50 }, () =>
          p.service.send(flooder, floodAgent, {
            message: userMessage('work'),
            configuration: { returnImmediately: true },
          }),
        ),
      );
      for (const r of sent) if ('task' in r) flood.push(r.task.id);
    }
    // Workers start only now, facing the whole backlog.
    p.startWorker({ concurrency: 4 });
    await waitFor(async () => (await p.store.getTaskRecord('acme', flood[0]!))?.attempts);
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await p.service.send(quiet, quietAgent, {
        message: userMessage('mine'),
        configuration: { returnImmediately: true },
      });
      if ('task' in r) mine.push(r.task.id);
    }
    await waitFor(
      async () =>
        (await Promise.all(mine.map((id) => p.store.getTaskRecord('evil', id)))).every(
          (r) => r && isTerminal(r.state),
        ),
      { timeoutMs: 60_000, what: "the quiet tenant's tasks" },
    );
    const floodStates = await Promise.all(flood.map((id) => p.store.getTaskRecord('acme', id)));
    const floodDone = floodStates.filter((r) => r && isTerminal(r.state)).length;
    // FIFO would have run all 1,000 first; fair priority runs the quiet tenant's next.
    expect(floodDone).toBeLessThan(flood.length / 2);
  });
});
