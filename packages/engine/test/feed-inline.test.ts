import { describe, expect, it } from 'vitest';
import { decodeHint, encodeHint, taskEventFeed } from '@switchyard/events';
import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { fakeHub } from './fake-hub.ts';

// The feed's inline fast path with the hub and log as in-memory ports: a write that appended two
// events (last chunk + ending) sends one hint carrying both, and the feed delivers both in order
// without reading the log.
const status = (state: TaskState): StreamResponse => ({
  statusUpdate: { taskId: 'x', contextId: 'c', status: { state } },
});
const chunk: StreamResponse = {
  artifactUpdate: { taskId: 'x', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: '.' }] } },
};

describe('taskEventFeed with two-event hints', () => {
  it('inlines the preceding event and the hinted one, in order, with no log read', async () => {
    const { hub, emit } = fakeHub();
    let reads = 0;
    const abort = new AbortController();
    const feed = taskEventFeed({
      hub,
      readEvents: async () => {
        reads += 1;
        return reads === 1 ? [{ seq: 1, payload: status(TaskState.WORKING) }] : [];
      },
      tenantId: 't',
      taskId: 'x',
      afterSeq: 0,
      pollIntervalMs: 60_000,
      signal: abort.signal,
    });
    expect((await feed.next()).value).toMatchObject({ seq: 1 });
    const wire = encodeHint({
      tenantId: 't',
      taskId: 'x',
      seq: 3,
      state: TaskState.COMPLETED,
      payload: status(TaskState.COMPLETED),
      before: { seq: 2, payload: chunk },
    });
    const next = feed.next();
    emit(decodeHint(wire)!);
    expect((await next).value).toEqual({ seq: 2, payload: chunk });
    expect((await feed.next()).value).toEqual({ seq: 3, payload: status(TaskState.COMPLETED) });
    // Asked for more, the feed waits for the next hint: the inlined events need no log read.
    const more = feed.next();
    await new Promise((r) => setImmediate(r));
    expect(reads).toBe(1);
    abort.abort();
    expect((await more).done).toBe(true);
  });

  it('a hint without its payload, or out of step, is read from the log', async () => {
    const { hub, emit } = fakeHub();
    const log = [1, 2, 3].map((seq) => ({ seq, payload: status(TaskState.WORKING) }));
    const readsAfter: number[] = [];
    const abort = new AbortController();
    const feed = taskEventFeed({
      hub,
      readEvents: async (_t, _id, afterSeq) => {
        readsAfter.push(afterSeq);
        return log.filter((e) => e.seq > afterSeq && e.seq <= visible);
      },
      tenantId: 't',
      taskId: 'x',
      afterSeq: 0,
      pollIntervalMs: 60_000,
      signal: abort.signal,
    });
    let visible = 1;
    expect((await feed.next()).value).toMatchObject({ seq: 1 });
    // No payload (too large to inline): the feed reads the log.
    visible = 2;
    let next = feed.next();
    emit({ tenantId: 't', taskId: 'x', seq: 2, state: TaskState.WORKING });
    expect((await next).value).toMatchObject({ seq: 2 });
    // A payload past a gap (seq 3 of 4 missing... here 3 skipped to 4 is not in step): read too.
    visible = 3;
    next = feed.next();
    emit({
      tenantId: 't',
      taskId: 'x',
      seq: 4,
      state: TaskState.WORKING,
      payload: status(TaskState.WORKING),
    });
    expect((await next).value).toMatchObject({ seq: 3 });
    expect(readsAfter).toEqual([0, 1, 2]);
    abort.abort();
    await feed.return(undefined);
  });

  it('a hint too large to inline drops both payloads (receivers read the log)', () => {
    const big: StreamResponse = {
      artifactUpdate: {
        taskId: 'x',
        contextId: 'c',
        artifact: { artifactId: 'a', parts: [{ text: 'x'.repeat(20_000) }] },
      },
    };
    const decoded = decodeHint(
      encodeHint({
        tenantId: 't',
        taskId: 'x',
        seq: 3,
        state: TaskState.COMPLETED,
        payload: status(TaskState.COMPLETED),
        before: { seq: 2, payload: big },
      }),
    )!;
    expect(decoded).toEqual({ tenantId: 't', taskId: 'x', seq: 3, state: TaskState.COMPLETED });
  });
});

describe('taskEventFeed on a pruned log', () => {
  // Found in review: it had no gap handler, so on a finished task whose log retention pruned it
  // waited for events that would never come, reading the log again at every poll.
  it("ends once the log does not continue to the task's final event", async () => {
    const { hub } = fakeHub();
    let reads = 0;
    const feed = taskEventFeed({
      hub,
      readEvents: async () => {
        reads += 1;
        return [];
      },
      tenantId: 't',
      taskId: 'x',
      afterSeq: 2,
      // Its last event is 9; 3 to 9 were pruned.
      finalSeq: 9,
      pollIntervalMs: 10,
    });
    expect((await feed.next()).done).toBe(true);
    expect(reads).toBe(1);
  });
});
