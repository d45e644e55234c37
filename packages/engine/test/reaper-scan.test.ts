import { createServer, type AddressInfo } from 'node:net';
import { Redis as IORedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { Reaper } from '../src/index.ts';
import { parsePosition, redisScanPosition } from '../src/reaper-turn.ts';
import {
  mallory,
  queuedEchoTask,
  quietWriter,
  startPlatform,
  userMessage,
  type Platform,
} from './platform-fixture.ts';

// Found in audit: each sweep looked at the 200 oldest dispatchable tasks of all tenants. Under one
// tenant's backlog those are its queued tasks, whose jobs still exist, every sweep: another
// tenant's task whose enqueue was lost, behind them, was not dispatched until the backlog drained.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ dispatchGraceMs: 0 });
});
afterAll(() => p.close());

describe("a reaper's dispatch scan", () => {
  it('goes on where the last sweep stopped, so a lost task behind a backlog is found', async () => {
    const backlog: string[] = [];
    for (let i = 0; i < 201; i++) backlog.push(await queuedEchoTask(p, `queued ${i}`));
    const sent = await p.service.send(mallory, (await p.admin.getAgent('evil', 'echo'))!, {
      message: userMessage('my job was lost'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const lost = sent.task.id;

    let dispatched: Dispatch[] = [];
    const reaper = new Reaper({
      store: p.store,
      writer: quietWriter(p.store),
      dispatcher: { enqueue: async (d) => void dispatched.push(d) },
      config: p.config,
      log: silentLogger(),
      dispatchesPerSweep: 200,
    });
    const sweep = async () => {
      dispatched = [];
      await reaper.sweep();
      return dispatched.map((d) => d.taskId);
    };
    expect(await sweep()).toEqual(backlog.slice(0, 200));
    expect(await sweep()).toEqual([backlog[200], lost]);
    // A short page ended the scan: the next one begins at the oldest again.
    expect((await sweep()).slice(0, 2)).toEqual(backlog.slice(0, 2));

    // Found in review: the turn moves between workers, so the position is shared (in Redis): a
    // second worker's reaper goes on where the first one's sweep stopped.
    const position = redisScanPosition(p.redis.connect(), `${p.keys.reaperTurn}:scan`);
    const reaperOf = (enqueue: (d: Dispatch) => Promise<void>) =>
      new Reaper({
        store: p.store,
        writer: quietWriter(p.store),
        dispatcher: { enqueue },
        config: p.config,
        log: silentLogger(),
        dispatchesPerSweep: 200,
        scanPosition: position,
      });
    const seen: string[] = [];
    await reaperOf(async (d) => void seen.push(d.taskId)).sweep();
    expect(seen).toEqual(backlog.slice(0, 200));
    // Redis refuses the next sweep's dispatches: the sweep after starts at the first of them
    // again, rather than past them (its page was short, which would otherwise restart at the oldest).
    const refused = await reaperOf(() => Promise.reject(new Error('redis away'))).sweep();
    expect(refused.errors).toBe(2);
    seen.length = 0;
    await reaperOf(async (d) => void seen.push(d.taskId)).sweep();
    expect(seen).toEqual([backlog[200], lost]);

    // Found in review: a task whose dispatch always fails held the scan where it stood, so nothing
    // past it was looked at again. One that fails while later ones go out is passed at once; one
    // with nothing after it holds the scan for a few sweeps (a Redis restart), then is passed too.
    const failing = (bad: string) => {
      const reaper = new Reaper({
        store: p.store,
        writer: quietWriter(p.store),
        dispatcher: {
          enqueue: async (d) => {
            if (d.taskId === bad) throw new Error(`no dispatch for ${bad}`);
            dispatched.push(d);
          },
        },
        config: p.config,
        log: silentLogger(),
        dispatchesPerSweep: 200,
      });
      return async () => {
        dispatched = [];
        const stats = await reaper.sweep();
        return { ids: dispatched.map((d) => d.taskId), errors: stats.errors };
      };
    };
    const passesIt = failing(backlog[200]!);
    expect((await passesIt()).ids).toEqual(backlog.slice(0, 200));
    expect(await passesIt()).toEqual({ ids: [lost], errors: 1 });
    expect((await passesIt()).ids).toEqual(backlog.slice(0, 200));

    const lastFails = failing(lost);
    expect((await lastFails()).ids).toEqual(backlog.slice(0, 200));
    expect(await lastFails()).toEqual({ ids: [backlog[200]], errors: 1 });
    for (let held = 0; held < 3; held++) expect(await lastFails()).toEqual({ ids: [], errors: 1 });
    expect((await lastFails()).ids).toEqual(backlog.slice(0, 200));
  });

  // Found in review: the shared position is read and kept on the queue's connection, which holds
  // commands while it reconnects, so the sweep waited out the outage and recovered no lease.
  it('sweeps when Redis does not answer for the shared position', async () => {
    // The queue's connection queues commands while it reconnects: they never settle.
    const port = await closedPort();
    const away = new IORedis({ port, host: '127.0.0.1', maxRetriesPerRequest: null, lazyConnect: true });
    away.on('error', () => undefined);
    void away.connect().catch(() => undefined);
    const dispatched: string[] = [];
    const reaper = new Reaper({
      store: p.store,
      writer: quietWriter(p.store),
      dispatcher: { enqueue: async (d) => void dispatched.push(d.taskId) },
      config: p.config,
      log: silentLogger(),
      dispatchesPerSweep: 200,
      scanPosition: redisScanPosition(away, 'nowhere:scan'),
    });
    try {
      // The first test's tasks are still waiting: the sweep dispatches them, then keeps its place.
      const stats = await reaper.sweep();
      expect(stats.dispatched).toBe(200);
      expect(dispatched).toHaveLength(200);
    } finally {
      away.disconnect();
    }
  });

  // Found in review: a sweep dispatched 200 tasks one after another, so a flushed queue's backlog
  // came back at 100 tasks a second. Now a sweep's dispatches go several at a time, and a sweep
  // whose dispatches Redis stopped taking part way still holds the scan at the first refused: the
  // first in the scan of those that failed after the last one went out, though dispatches finish
  // out of scan order.
  it('dispatches several at a time, and holds the scan where Redis stopped taking them', async () => {
    const order = (await p.store.findDispatchable(0, 1000)).tasks.map((t) => t.taskId);
    expect(order.length).toBeGreaterThan(150);
    let starts = 0;
    let finished = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    let awayAfter = 100;
    const sent: string[] = [];
    const refused: string[] = [];
    const reaper = new Reaper({
      store: p.store,
      writer: quietWriter(p.store),
      dispatcher: {
        enqueue: async (d) => {
          inFlight++;
          mostInFlight = Math.max(mostInFlight, inFlight);
          // Later starts take less time, so a dispatch finishes after some begun after it.
          await new Promise((resolve) => setTimeout(resolve, 8 - (starts++ % 8)));
          inFlight--;
          if (finished++ >= awayAfter) {
            refused.push(d.taskId);
            throw new Error('redis away');
          }
          sent.push(d.taskId);
        },
      },
      config: p.config,
      log: silentLogger(),
    });
    const first = await reaper.sweep();
    expect(mostInFlight).toBeGreaterThan(1);
    expect(first).toMatchObject({ dispatched: 100, errors: order.length - 100 });
    const firstRefused = Math.min(...refused.map((id) => order.indexOf(id)));
    // The case this is about: a dispatch refused at a place in the scan before one that went out.
    expect(firstRefused).toBeLessThan(Math.max(...sent.map((id) => order.indexOf(id))));
    sent.length = 0;
    awayAfter = Infinity;
    await reaper.sweep();
    expect(new Set(sent)).toEqual(new Set(order.slice(firstRefused)));
  });
});

describe('a saved scan position', () => {
  it('is used only when it is one findDispatchable wrote', () => {
    const good = {
      runAfter: '2026-12-01T18:24:09.723456Z',
      tenantId: 'acme',
      taskId: '0193f1a2-7b7c-7d3e-8f00-123456789abc',
    };
    expect(parsePosition(JSON.stringify(good))).toEqual(good);
    for (const bad of [
      'not json',
      'null',
      '42',
      JSON.stringify({ ...good, runAfter: 'yesterday' }),
      JSON.stringify({ ...good, taskId: 'not-a-uuid' }),
      JSON.stringify({ ...good, tenantId: '' }),
      JSON.stringify({ runAfter: good.runAfter }),
    ])
      expect(parsePosition(bad), bad).toBeUndefined();
  });
});

// Found in review: every task the scan found was counted as dispatched, though under a backlog
// most still had their job queued and redispatch left them alone: a dispatch storm on the metric.
describe("a reaper's dispatch count", () => {
  it('counts only the jobs its redispatch added or revived', async () => {
    const found = (await p.store.findDispatchable(0, 1000)).tasks.length;
    expect(found).toBeGreaterThan(2);
    let added = 0;
    const reaper = new Reaper({
      store: p.store,
      writer: quietWriter(p.store),
      dispatcher: {
        enqueue: () => Promise.reject(new Error('the reaper redispatches')),
        // The first two had lost their jobs; the rest are still queued.
        redispatch: () => Promise.resolve(added++ < 2),
      },
      config: p.config,
      log: silentLogger(),
      dispatchesPerSweep: 1000,
    });
    const stats = await reaper.sweep();
    expect(added).toBe(found);
    expect(stats.dispatched).toBe(2);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
