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
  it("runs one tenant's tasks in the order they were sent while new ones keep arriving", async () => {
    // With priority = the tenant's backlog depth, once a burst had shrunk each new task ran ahead
    // of the burst's tail, which under steady load waited until the sends stopped.
    const agent = (await p.admin.getAgent('evil', 'quick'))!;
    const sendOne = async (text: string) => {
      const r = await p.service.send(quiet, agent, {
        message: userMessage(text),
        configuration: { returnImmediately: true },
      });
      if (!('task' in r)) throw new Error('expected a task');
      return r.task.id;
    };
    const sent: string[] = [];
    for (let i = 0; i < 30; i++) sent.push(await sendOne(`old ${i}`));
    const worker = p.startWorker({ concurrency: 1 });
    try {
      // A third of the burst has run; then about one new task per task run, while it drains.
      await waitFor(
        async () => {
          const done = await Promise.all(sent.map((id) => p.store.getTaskRecord('evil', id)));
          return done.filter((r) => r && isTerminal(r.state)).length >= 10;
        },
        { what: 'a third of the burst to run' },
      );
      for (let i = 0; i < 30; i++) {
        sent.push(await sendOne(`new ${i}`));
        await new Promise((r) => setTimeout(r, 10));
      }
      const records = await waitFor(
        async () => {
          const all = await Promise.all(sent.map((id) => p.store.getTaskRecord('evil', id)));
          return all.every((r) => r && isTerminal(r.state)) ? all : null;
        },
        { timeoutMs: 60_000, what: 'every task to finish' },
      );
      // One slot: tasks finished in the order they ran.
      const finishedAt = records.map((r) => r!.statusTimestamp.getTime());
      expect(finishedAt).toEqual([...finishedAt].sort((a, b) => a - b));
    } finally {
      await worker.stop();
    }
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
