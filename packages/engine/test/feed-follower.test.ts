import { describe, expect, it } from 'vitest';
import { TaskEventFollower, type FeedEvent } from '@switchyard/events';
import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { fakeHub } from './fake-hub.ts';

// The push follower an SSE stream holds, with the hub and log as in-memory ports: delivery straight
// from the hint, pausing when the sink says so, closing, a failed read, and a log with a hole.
const working: StreamResponse = {
  statusUpdate: { taskId: 'x', contextId: 'c', status: { state: TaskState.WORKING } },
};
const events = (n: number): FeedEvent[] =>
  Array.from({ length: n }, (_, i) => ({ seq: i + 1, payload: working }));
const tick = () => new Promise((r) => setImmediate(r));

describe('TaskEventFollower', () => {
  it('delivers an in-step hint synchronously, with no read and no promise in between', async () => {
    const { hub, emit } = fakeHub();
    let reads = 0;
    const got: number[] = [];
    const follower = new TaskEventFollower(
      {
        hub,
        readEvents: async () => (reads++, []),
        tenantId: 't',
        taskId: 'x',
        afterSeq: 4,
        pollIntervalMs: 60_000,
      },
      { event: (e) => (got.push(e.seq), true), failed: () => undefined },
    ).start();
    await tick();
    expect(reads).toBe(1); // the first read: what happened before the hints
    emit({ tenantId: 't', taskId: 'x', seq: 5, state: TaskState.WORKING, payload: working });
    expect(got).toEqual([5]);
    expect(reads).toBe(1);
    follower.close();
  });

  it('a sink that returns false gets nothing more, and nothing more is read, until resume()', async () => {
    const { hub } = fakeHub();
    const log = events(1200);
    const readsAfter: number[] = [];
    const got: number[] = [];
    let take = 3;
    const follower = new TaskEventFollower(
      {
        hub,
        readEvents: async (_t, _id, after, limit) => {
          readsAfter.push(after);
          return log.filter((e) => e.seq > after).slice(0, limit);
        },
        tenantId: 't',
        taskId: 'x',
        afterSeq: 0,
        pollIntervalMs: 60_000,
      },
      { event: (e) => (got.push(e.seq), --take > 0), failed: () => undefined },
    ).start();
    await tick();
    expect(got).toEqual([1, 2, 3]);
    await tick();
    expect(readsAfter).toEqual([0]);
    take = Infinity;
    follower.resume();
    for (let i = 0; i < 5 && got.length < 1200; i++) await tick();
    expect(got).toEqual(log.map((e) => e.seq));
    // Pages of 500: the rest of the first page from what was read, then two more reads.
    expect(readsAfter).toEqual([0, 500, 1000]);
    follower.close();
  });

  it('hints that come while paused are not held (the log is read on resume): a slow client costs no memory', async () => {
    const { hub, emit } = fakeHub();
    const log = events(2);
    const readsAfter: number[] = [];
    const got: number[] = [];
    let open = false;
    const follower = new TaskEventFollower(
      {
        hub,
        readEvents: async (_t, _id, after, limit) => {
          readsAfter.push(after);
          return log.filter((e) => e.seq > after).slice(0, limit);
        },
        tenantId: 't',
        taskId: 'x',
        afterSeq: 0,
        pollIntervalMs: 60_000,
      },
      { event: (e) => (got.push(e.seq), open), failed: () => undefined },
    ).start();
    await tick();
    expect(got).toEqual([1]); // paused after the first
    for (let seq = 3; seq <= 1000; seq++) {
      log.push({ seq, payload: working });
      emit({ tenantId: 't', taskId: 'x', seq, state: TaskState.WORKING, payload: working });
    }
    await tick();
    expect(got).toEqual([1]);
    expect(readsAfter).toEqual([0]);
    open = true;
    follower.resume();
    for (let i = 0; i < 5 && got.length < 1000; i++) await tick();
    expect(got).toEqual(log.map((e) => e.seq));
    // Event 2 from the first read, then the rest from the log, not from 998 held hints.
    expect(readsAfter).toEqual([0, 2, 502]);
    follower.close();
  });

  it('close() lets go of the hint and stops delivering, even mid-read', async () => {
    const { hub, emit, watchers } = fakeHub();
    let release: (events: FeedEvent[]) => void = () => undefined;
    const got: number[] = [];
    const follower = new TaskEventFollower(
      {
        hub,
        readEvents: () => new Promise((resolve) => (release = resolve)),
        tenantId: 't',
        taskId: 'x',
        afterSeq: 0,
        pollIntervalMs: 60_000,
      },
      { event: (e) => (got.push(e.seq), true), failed: () => undefined },
    ).start();
    expect(watchers()).toBe(1);
    follower.close();
    expect(watchers()).toBe(0);
    release(events(2));
    emit({ tenantId: 't', taskId: 'x', seq: 1, state: TaskState.WORKING, payload: working });
    await tick();
    expect(got).toEqual([]);
  });

  it('a read that keeps failing, past its retries, closes the follower and tells the sink, once', async () => {
    const { hub, watchers } = fakeHub();
    const failures: unknown[] = [];
    let reads = 0;
    new TaskEventFollower(
      {
        hub,
        readEvents: () => (reads++, Promise.reject(new Error('store down'))),
        tenantId: 't',
        taskId: 'x',
        afterSeq: 0,
        pollIntervalMs: 60_000,
        readRetryDelaysMs: [0, 0],
      },
      { event: () => true, failed: (err) => failures.push(err) },
    ).start();
    await waitFor(() => failures.length > 0, { what: 'the follower to give up' });
    await tick();
    expect(failures).toEqual([new Error('store down')]);
    expect(reads).toBe(3);
    expect(watchers()).toBe(0);
  });

  it('a read that fails for a moment (Postgres restarting) is retried, and the stream goes on', async () => {
    const { hub, watchers } = fakeHub();
    const failures: unknown[] = [];
    const got: number[] = [];
    let reads = 0;
    const follower = new TaskEventFollower(
      {
        hub,
        readEvents: async () => {
          if (++reads <= 2) throw new Error('connection refused');
          return events(3);
        },
        tenantId: 't',
        taskId: 'x',
        afterSeq: 0,
        pollIntervalMs: 60_000,
        readRetryDelaysMs: [0, 0],
      },
      { event: (e) => (got.push(e.seq), true), failed: (err) => failures.push(err) },
    ).start();
    await waitFor(() => got.length === 3, { what: 'the events after the failed reads' });
    expect(got).toEqual([1, 2, 3]);
    expect(failures).toEqual([]);
    expect(watchers()).toBe(1);
    follower.close();
  });

  it('hints during the pause after a failed read wait for it, rather than spend the retries', async () => {
    const { hub, emit } = fakeHub();
    const failures: unknown[] = [];
    const got: number[] = [];
    let reads = 0;
    const follower = new TaskEventFollower(
      {
        hub,
        readEvents: async () => {
          if (++reads === 1) throw new Error('pool exhausted');
          return events(2);
        },
        tenantId: 't',
        taskId: 'x',
        afterSeq: 0,
        pollIntervalMs: 60_000,
        readRetryDelaysMs: [100],
      },
      { event: (e) => (got.push(e.seq), true), failed: (err) => failures.push(err) },
    ).start();
    await waitFor(() => reads === 1, { what: 'the first read' });
    await tick();
    // A busy task: hints without payloads, each asking for a read of the log.
    for (let seq = 1; seq <= 5; seq++) emit({ tenantId: 't', taskId: 'x', seq, state: TaskState.WORKING });
    await tick();
    expect(reads).toBe(1);
    await waitFor(() => got.length === 2, { what: 'the read after the pause' });
    expect(reads).toBe(2);
    expect(failures).toEqual([]);
    follower.close();
  });

  it('a sink that throws ends its own follower, and is told so', async () => {
    const { hub, emit, watchers } = fakeHub();
    const failures: unknown[] = [];
    new TaskEventFollower(
      { hub, readEvents: async () => [], tenantId: 't', taskId: 'x', afterSeq: 0, pollIntervalMs: 60_000 },
      {
        event: () => {
          throw new Error('socket gone');
        },
        failed: (err) => failures.push(err),
      },
    ).start();
    await tick();
    expect(() =>
      emit({ tenantId: 't', taskId: 'x', seq: 1, state: TaskState.WORKING, payload: working }),
    ).not.toThrow();
    expect(failures).toEqual([new Error('socket gone')]);
    expect(watchers()).toBe(0);
  });

  describe('a log that does not continue (pruned events: FeedSink.gap)', () => {
    /** A follower over a fixed log of `seqs`, collecting what it delivers and where it saw a gap. */
    function follow(
      seqs: number[],
      afterSeq: number,
      options: { finalSeq?: number; withGap?: boolean } = {},
    ) {
      const { hub, watchers } = fakeHub();
      const got: number[] = [];
      const gaps: number[] = [];
      const follower = new TaskEventFollower(
        {
          hub,
          readEvents: async (_t, _id, after, limit) =>
            seqs
              .filter((seq) => seq > after)
              .slice(0, limit)
              .map((seq) => ({ seq, payload: working })),
          tenantId: 't',
          taskId: 'x',
          afterSeq,
          pollIntervalMs: 60_000,
          ...(options.finalSeq !== undefined ? { finalSeq: options.finalSeq } : {}),
        },
        {
          event: (e) => (got.push(e.seq), true),
          failed: () => undefined,
          ...(options.withGap === false ? {} : { gap: (after: number) => gaps.push(after) }),
        },
      ).start();
      return { follower, got, gaps, watchers };
    }

    it('delivers what continues the sequence, then reports the hole once and lets go', async () => {
      const f = follow([3, 4, 7, 8], 2);
      await tick();
      expect(f.got).toEqual([3, 4]);
      expect(f.gaps).toEqual([4]);
      expect(f.watchers()).toBe(0);
    });

    it('a final log that ends before its last seq is a hole, even with nothing read', async () => {
      const f = follow([], 1, { finalSeq: 4 });
      await tick();
      expect(f.gaps).toEqual([1]);
      const tail = follow([2, 3], 1, { finalSeq: 4 });
      await tick();
      expect(tail.got).toEqual([2, 3]);
      expect(tail.gaps).toEqual([3]);
    });

    it('a final log read whole reports no hole, across pages', async () => {
      const seqs = events(1200).map((e) => e.seq);
      const f = follow(seqs, 0, { finalSeq: 1200 });
      for (let i = 0; i < 5 && f.got.length < 1200; i++) await tick();
      expect(f.got).toEqual(seqs);
      expect(f.gaps).toEqual([]);
      f.follower.close();
    });

    it('an empty read of a live log (no finalSeq) is no hole: nothing new yet', async () => {
      const f = follow([], 4);
      await tick();
      expect(f.gaps).toEqual([]);
      expect(f.watchers()).toBe(1);
      f.follower.close();
    });

    it('a sink without gap keeps waiting, as before', async () => {
      const f = follow([3, 5], 2, { withGap: false });
      await tick();
      expect(f.got).toEqual([3]);
      expect(f.watchers()).toBe(1);
      f.follower.close();
    });
  });
});
