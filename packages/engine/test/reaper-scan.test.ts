import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { Reaper } from '../src/index.ts';
import { redisScanPosition } from '../src/reaper-turn.ts';
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
        scanPosition: position,
      });
    const seen: string[] = [];
    await reaperOf(async (d) => void seen.push(d.taskId)).sweep();
    expect(seen).toEqual(backlog.slice(0, 200));
    // Redis refuses the next sweep's first dispatch: the sweep after starts at that task again,
    // rather than past it (its page was short, which would otherwise restart at the oldest).
    const refused = await reaperOf(async (d) => {
      if (d.taskId === backlog[200]) throw new Error('redis away');
    }).sweep();
    expect(refused.errors).toBe(1);
    seen.length = 0;
    await reaperOf(async (d) => void seen.push(d.taskId)).sweep();
    expect(seen).toEqual([backlog[200], lost]);
  });
});
