import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { createDb, runRetention } from '@switchyard/store';
import { streamItems, type StreamItem } from '../src/index.ts';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Last-Event-ID resume (ARCHITECTURE.md §3 rule 3, §8): retention prunes a terminal task's log a
// day after it ended, keeping only events a pending or dead push delivery needs. A resume whose
// events are gone gets the Task snapshot in their place and ends; it never waits for them.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
  p.startWorker();
});
afterAll(() => p.close());

/** An echo task, run to the end: seq 1 SUBMITTED, 2 WORKING, 3 its artifact, 4 COMPLETED. */
async function finishedEcho(): Promise<string> {
  const sent = await p.service.send(alice, await p.agent('echo'), { message: userMessage('hello') });
  if (!('task' in sent)) throw new Error('expected a task');
  expect(sent.task.status.state).toBe(TaskState.COMPLETED);
  expect((await p.store.getTaskRecord('acme', sent.task.id))?.version).toBe(4);
  return sent.task.id;
}

/** A dead push delivery of event `seq`, which retention must keep the event for. */
async function deadDelivery(taskId: string, seq: number): Promise<void> {
  await p.db.pool.query(
    `INSERT INTO push_configs (tenant_id, task_id, id, url) VALUES ('acme', $1, 'hook', 'https://hooks.example.com/a2a')
     ON CONFLICT DO NOTHING`,
    [taskId],
  );
  await p.db.pool.query(
    `INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq, status) VALUES ('acme', $1, 'hook', $2, 'dead')`,
    [taskId, seq],
  );
}

const pruneEvents = () => runRetention(createDb(p.db.pool), { eventTtlMs: 0 });

/** Every item of a resumed subscription; returns once the stream has ended. */
async function resume(taskId: string, afterSeq: number, agentId = 'echo'): Promise<StreamItem[]> {
  const items: StreamItem[] = [];
  for await (const item of streamItems(p.service.subscribe(alice, agentId, taskId, afterSeq)))
    items.push(item);
  return items;
}

const shape = (items: StreamItem[]) =>
  items.map(
    (i) =>
      `${i.seq}:${i.response.task ? `task ${i.response.task.status.state}` : Object.keys(i.response)[0]}`,
  );

describe('Last-Event-ID resume of a terminal task', () => {
  it('with its log whole, gets exactly the events after the id and ends at the terminal one', async () => {
    const taskId = await finishedEcho();
    expect(shape(await resume(taskId, 1))).toEqual(['2:statusUpdate', '3:artifactUpdate', '4:statusUpdate']);
    expect(shape(await resume(taskId, 3))).toEqual(['4:statusUpdate']);
  });

  it('with its log pruned, gets the Task snapshot (artifacts included) and ends', async () => {
    const taskId = await finishedEcho();
    await pruneEvents();
    expect(await p.store.readEvents('acme', taskId, 0)).toEqual([]);
    const items = await resume(taskId, 1);
    expect(shape(items)).toEqual([`4:task ${TaskState.COMPLETED}`]);
    expect(items[0]!.response.task).toEqual(await p.service.getTask(alice, 'echo', taskId));
  });

  it('with only the events a dead push delivery needs kept, gets those that continue its id, then the snapshot', async () => {
    const taskId = await finishedEcho();
    await deadDelivery(taskId, 2);
    await pruneEvents();
    expect((await p.store.readEvents('acme', taskId, 0)).map((e) => e.seq)).toEqual([2]);
    expect(shape(await resume(taskId, 1))).toEqual(['2:statusUpdate', `4:task ${TaskState.COMPLETED}`]);
    // An id older than the oldest event kept: the log does not continue from it.
    expect(shape(await resume(taskId, 0))).toEqual([`4:task ${TaskState.COMPLETED}`]);
    expect(shape(await resume(taskId, 2))).toEqual([`4:task ${TaskState.COMPLETED}`]);
  });

  it('at its last event has nothing more to stream (UnsupportedOperation), pruned or not', async () => {
    const taskId = await finishedEcho();
    await expect(p.service.subscribe(alice, 'echo', taskId, 4)).rejects.toMatchObject({
      kind: 'UnsupportedOperation',
    });
    await pruneEvents();
    await expect(p.service.subscribe(alice, 'echo', taskId, 4)).rejects.toMatchObject({
      kind: 'UnsupportedOperation',
    });
  });
});

describe('Last-Event-ID past the task’s version (an id this task never sent)', () => {
  it('a terminal task answers with the snapshot and ends', async () => {
    const taskId = await finishedEcho();
    expect(shape(await resume(taskId, 99))).toEqual([`4:task ${TaskState.COMPLETED}`]);
  });

  it('a live task answers with the snapshot, then every later event exactly once, to the end', async () => {
    await p.slowAgent('steps', { steps: 5, delayMs: 100 });
    const sent = await p.service.send(alice, await p.agent('steps'), {
      message: userMessage('go'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const items = await resume(sent.task.id, 10_000, 'steps');
    expect(items[0]!.response.task).toBeDefined();
    const seqs = items.map((i) => i.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
    const record = await p.store.getTaskRecord('acme', sent.task.id);
    expect(record?.state).toBe(TaskState.COMPLETED);
    expect(seqs.at(-1)).toBe(record!.version);
  });
});
