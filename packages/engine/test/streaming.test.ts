import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionHub, taskEventFeed, VersionSweep } from '@switchyard/events';
import { isTerminal, TaskState } from '@switchyard/protocol';
import { streamItems, type StreamItem } from '../src/index.ts';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
  p.startWorker();
  await p.slowAgent('fifty', { steps: 50, delayMs: 1500 });
});
afterAll(() => p.close());

async function fifty() {
  return (await p.admin.getAgent('acme', 'fifty'))!;
}

function stateOf(item: StreamItem) {
  return item.response.statusUpdate?.status.state ?? item.response.task?.status.state;
}

describe('streams (digest §7.2 rule 18, §7.6)', () => {
  it('a stream starts with the Task snapshot, then every event in order, and closes at the terminal state', async () => {
    const items: StreamItem[] = [];
    for await (const item of streamItems(
      p.service.sendStreaming(
        alice,
        await fifty(),
        { message: userMessage('go') },
        {},
        new AbortController().signal,
      ),
    )) {
      items.push(item);
    }
    expect(items[0]?.response.task).toBeDefined();
    const seqs = items.map((i) => i.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1]! + 1);
    const last = items.at(-1)!;
    expect(isTerminal(stateOf(last)!)).toBe(true);
    // Status timestamps never go backwards, the announcement that made the request a Task
    // (the quick-reply window passing while the agent works) included.
    const stamps = items
      .map((i) => i.response.statusUpdate?.status.timestamp ?? i.response.task?.status.timestamp)
      .filter((t) => t !== undefined);
    expect(stamps).toEqual([...stamps].sort());
  });

  it('every streamed event is the event the log holds at its seq, status times included', async () => {
    // Status updates on the way (progress 'both'), so hints carry status events inline; their
    // times are the database's, set in the commit, and the hint must carry the stored event.
    const stepper = await p.slowAgent('stepper', { steps: 10, delayMs: 500, progress: 'both' });
    const items: StreamItem[] = [];
    for await (const item of streamItems(
      p.service.sendStreaming(
        alice,
        stepper,
        { message: userMessage('go') },
        {},
        new AbortController().signal,
      ),
    ))
      items.push(item);
    const taskId = items[0]!.response.task!.id;
    const log = new Map((await p.store.readEvents('acme', taskId, 0, 1000)).map((e) => [e.seq, e.payload]));
    const later = items.slice(1);
    expect(later.filter((i) => i.response.statusUpdate).length).toBeGreaterThan(5);
    for (const item of later) expect(item.response).toEqual(log.get(item.seq));
  });

  it('a stream of a task the request created starts at its creation and carries every event after it', async () => {
    const items: StreamItem[] = [];
    const echo = (await p.admin.getAgent('acme', 'echo'))!;
    const opened = p.service.sendStreaming(
      alice,
      echo,
      { message: userMessage('all of it') },
      {},
      new AbortController().signal,
    );
    for await (const item of streamItems(opened)) items.push(item);
    expect(items.map((i) => i.seq)).toEqual([1, 2, 3, 4]);
    expect(items[0]?.response.task?.status.state).toBe(TaskState.SUBMITTED);
    expect(items[0]?.response.task?.history?.map((m) => m.parts)).toEqual([[{ text: 'all of it' }]]);
    expect(items.map((i) => Object.keys(i.response)[0])).toEqual([
      'task',
      'statusUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
    const events = await p.store.readEvents('acme', items[0]!.response.task!.id, 1);
    expect(items.slice(1).map((i) => i.response)).toEqual(events.map((e) => e.payload));
  });

  it('a stream that reconnects with Last-Event-ID at every point of a 50-event task receives every event exactly once, in order', async () => {
    const r = await p.service.send(alice, await fifty(), {
      message: userMessage('go'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in r)) throw new Error('expected a task');
    const received: StreamItem[] = [];
    // The first connection takes the snapshot; every later one resumes after the last id seen.
    let lastId: number | undefined;
    for (let connection = 0; connection < 500; connection++) {
      let gotOne = false;
      for await (const item of streamItems(p.service.subscribe(alice, 'fifty', r.task.id, lastId))) {
        received.push(item);
        lastId = item.seq;
        gotOne = true;
        break; // disconnect right after every event
      }
      if (!gotOne) break;
      const state = stateOf(received.at(-1)!);
      if (state && isTerminal(state)) break;
    }
    const all = await p.store.readEvents('acme', r.task.id, received[0]!.seq);
    expect(received.slice(1).map((i) => i.seq)).toEqual(all.map((e) => e.seq));
    expect(received.slice(1).map((i) => i.response)).toEqual(all.map((e) => e.payload));
    expect(received.filter((i) => i.response.artifactUpdate).length).toBeGreaterThan(0);
    expect(stateOf(received.at(-1)!)).toBe(TaskState.COMPLETED);
  });

  it('pub/sub loss (the subscriber connection killed mid-task) delays events but loses none', async () => {
    const sub = p.redis.connect();
    const id = (await sub.client('ID')) as number;
    const hub = new SubscriptionHub({ subscriber: sub, keys: p.keys });
    const r = await p.service.send(alice, await fifty(), {
      message: userMessage('go'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in r)) throw new Error('expected a task');
    const abort = new AbortController();
    const seqs: number[] = [];
    const killer = p.redis.connect();
    for await (const event of taskEventFeed({
      hub,
      readEvents: (t, task, after, limit) => p.store.readEvents(t, task, after, limit),
      tenantId: 'acme',
      taskId: r.task.id,
      afterSeq: 0,
      pollIntervalMs: 500,
      signal: abort.signal,
    })) {
      seqs.push(event.seq);
      if (seqs.length === 10) await killer.client('KILL', 'ID', String(id));
      const state = event.payload.statusUpdate?.status.state;
      if (state && isTerminal(state)) break;
    }
    abort.abort();
    await hub.close();
    const record = await p.store.getTaskRecord('acme', r.task.id);
    expect(seqs).toEqual(Array.from({ length: record!.version }, (_, i) => i + 1));
  });

  it('with no hint at all (a writer killed between commit and publish), the shared version sweep still delivers every event', async () => {
    const r = await p.service.send(alice, await fifty(), {
      message: userMessage('go'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in r)) throw new Error('expected a task');
    const silentHub = { watch: () => () => undefined };
    const sweep = new VersionSweep({ readVersions: (keys) => p.store.readVersions(keys), intervalMs: 100 });
    let reads = 0;
    const abort = new AbortController();
    const seqs: number[] = [];
    for await (const event of taskEventFeed({
      hub: silentHub,
      readEvents: (t, task, after, limit) => {
        reads += 1;
        return p.store.readEvents(t, task, after, limit);
      },
      tenantId: 'acme',
      taskId: r.task.id,
      afterSeq: 0,
      sweep,
      signal: abort.signal,
    })) {
      seqs.push(event.seq);
      expect(sweep.size).toBe(1);
      const state = event.payload.statusUpdate?.status.state;
      if (state && isTerminal(state)) break;
    }
    abort.abort();
    expect(sweep.size).toBe(0);
    sweep.close();
    const record = await p.store.getTaskRecord('acme', r.task.id);
    expect(seqs).toEqual(Array.from({ length: record!.version }, (_, i) => i + 1));
    // The log is read when the sweep saw the task move, not on every sweep.
    expect(reads).toBeLessThanOrEqual(record!.version + 1);
  });

  it('§7.6 rule 30 subscribing to a terminal task is UnsupportedOperation', async () => {
    const done = await p.service.send(alice, await p.agent('echo'), { message: userMessage('x') });
    if (!('task' in done)) throw new Error('expected a task');
    await expect(p.service.subscribe(alice, 'echo', done.task.id)).rejects.toMatchObject({
      kind: 'UnsupportedOperation',
    });
  });
});
