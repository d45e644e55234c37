import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import type { OpenedStream, StreamItem } from '../src/index.ts';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// A Last-Event-ID resume at the task's current event id: the client has every event there is. A
// stream that closes at the state the task is in now (terminal aside, which is refused: an
// interrupted state under STREAM_CLOSE_ON_INPUT_REQUIRED / _AUTH_REQUIRED) has nothing more to
// send and closes at once, as the same resume from an older id or a fresh subscription closes
// after that state's event; any other stream waits for the task's next event.

/** "input" asks for input, "auth" for credentials; anything else completes the task. */
const asker: Agent = {
  executor: 'asker',
  card: { name: 'asker' } as Agent['card'],
  async execute(ctx) {
    const text = ctx.message.parts.map((part) => ('text' in part ? part.text : '')).join('');
    if (text === 'input') return ctx.requestInput('which one?');
    if (text === 'auth') return ctx.requestAuth('credentials, please');
    return ctx.complete('done');
  },
};

async function platform(closeStreamOnAuthRequired: boolean): Promise<Platform> {
  const p = await startPlatform({ closeStreamOnAuthRequired });
  await p.registerAgent(asker);
  await p.slowAgent('sleepy', { delayMs: 120_000 });
  p.startWorker({ findAgent: (executor) => (executor === 'asker' ? asker : findBundledAgent(executor)) });
  return p;
}

/** A task of the asker, sent blocking: it comes back in the state `text` asks for. */
async function waiting(p: Platform, text: 'input' | 'auth'): Promise<{ id: string; version: number }> {
  const sent = await p.service.send(alice, await p.agent('asker'), { message: userMessage(text) });
  if (!('task' in sent)) throw new Error('expected a task');
  const state = text === 'input' ? TaskState.INPUT_REQUIRED : TaskState.AUTH_REQUIRED;
  expect(sent.task.status.state).toBe(state);
  const record = await p.store.getTaskRecord('acme', sent.task.id);
  if (!record) throw new Error('no record');
  expect(record.state).toBe(state);
  return { id: sent.task.id, version: record.version };
}

/** Follows an opened stream, recording what it pushes and whether it ended. */
function watch(opened: OpenedStream) {
  const seen = { items: [] as StreamItem[], ended: false, stop: () => undefined as void };
  if (opened.first) seen.items.push(opened.first);
  seen.stop = opened.follow({
    item: (item) => void seen.items.push(item),
    end: () => void (seen.ended = true),
  });
  return seen;
}

const stateOf = (item: StreamItem | undefined) =>
  item?.response.statusUpdate?.status.state ?? item?.response.task?.status.state;

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('resume at the current event id (default settings: close on INPUT_REQUIRED, not AUTH_REQUIRED)', () => {
  let p: Platform;
  beforeAll(async () => {
    p = await platform(false);
  });
  afterAll(() => p?.close());

  it('INPUT_REQUIRED: ends at once with nothing to send, like a resume from the id before it', async () => {
    const { id, version } = await waiting(p, 'input');
    const atCurrent = watch(await p.service.subscribe(alice, 'asker', id, version));
    expect(atCurrent.items).toEqual([]);
    expect(atCurrent.ended).toBe(true);
    // From the id before: the INPUT_REQUIRED event, then the end.
    const before = watch(await p.service.subscribe(alice, 'asker', id, version - 1));
    await until(() => before.ended, 'the older resume to end');
    expect(before.items.map((i) => i.seq)).toEqual([version]);
    expect(stateOf(before.items[0])).toBe(TaskState.INPUT_REQUIRED);
    // A fresh subscription: the snapshot, then the end.
    const fresh = watch(await p.service.subscribe(alice, 'asker', id));
    await until(() => fresh.ended, 'the subscription to end');
    expect(fresh.items.map((i) => [i.seq, stateOf(i)])).toEqual([[version, TaskState.INPUT_REQUIRED]]);
  });

  it('AUTH_REQUIRED (STREAM_CLOSE_ON_AUTH_REQUIRED=false): stays open and gets the events of the resumed task', async () => {
    const { id, version } = await waiting(p, 'auth');
    const atCurrent = watch(await p.service.subscribe(alice, 'asker', id, version));
    await pause(500);
    expect(atCurrent.ended).toBe(false);
    expect(atCurrent.items).toEqual([]);
    await p.service.send(alice, await p.agent('asker'), {
      message: userMessage('here they are', { taskId: id }),
    });
    await until(() => atCurrent.ended, 'the resumed stream to end at COMPLETED');
    expect(atCurrent.items[0]?.seq).toBe(version + 1);
    expect(stateOf(atCurrent.items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it('WORKING: stays open and gets the next event', async () => {
    const sent = await p.service.send(alice, await p.agent('sleepy'), {
      message: userMessage('hold on'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const { id } = sent.task;
    let version = 0;
    const deadline = Date.now() + 10_000;
    while (version === 0) {
      const record = await p.store.getTaskRecord('acme', id);
      if (record?.state === TaskState.WORKING) version = record.version;
      else if (Date.now() > deadline) throw new Error('the task never started');
      else await pause(50);
    }
    const atCurrent = watch(await p.service.subscribe(alice, 'sleepy', id, version));
    await pause(500);
    expect(atCurrent.ended).toBe(false);
    expect(atCurrent.items).toEqual([]);
    await p.service.cancelTask(alice, 'sleepy', id);
    await until(() => atCurrent.ended, 'the stream to end at CANCELED');
    expect(atCurrent.items.map((i) => [i.seq, stateOf(i)])).toEqual([[version + 1, TaskState.CANCELED]]);
  });
});

describe('resume at the current event id with STREAM_CLOSE_ON_AUTH_REQUIRED=true', () => {
  let p: Platform;
  beforeAll(async () => {
    p = await platform(true);
  });
  afterAll(() => p?.close());

  it('AUTH_REQUIRED: ends at once with nothing to send', async () => {
    const { id, version } = await waiting(p, 'auth');
    const atCurrent = watch(await p.service.subscribe(alice, 'asker', id, version));
    expect(atCurrent.items).toEqual([]);
    expect(atCurrent.ended).toBe(true);
    const before = watch(await p.service.subscribe(alice, 'asker', id, version - 1));
    await until(() => before.ended, 'the older resume to end');
    expect(before.items.map((i) => [i.seq, stateOf(i)])).toEqual([[version, TaskState.AUTH_REQUIRED]]);
  });
});
