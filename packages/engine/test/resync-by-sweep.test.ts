import { TaskEventFollower, VersionSweep, type HintListener } from '@switchyard/events';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { describe, expect, it } from 'vitest';

// Found in review: after a Redis reconnect every open stream got 'resync' and read its own log at
// once. With thousands of streams on a gateway and a Postgres pool of ten, the reads queued behind
// each other and stalled every request of the gateway, and those still waiting past the pool's
// connect timeout failed. A feed with the shared version sweep now asks it instead: one statement
// per 1,000 tasks finds which feeds missed something, and only those read their logs.
describe('a resync with the shared version sweep', () => {
  it('costs one version read for all feeds, and a log read only for the feed that missed an event', async () => {
    const STREAMS = 200;
    const listeners: HintListener[] = [];
    const hub = {
      watch: (_tenantId: string, _taskId: string, listener: HintListener) => {
        listeners.push(listener);
        return () => undefined;
      },
    };
    // Every task is at version 1, which its feed delivers first. Then t7 gets an event while
    // Redis is away, and its hint is lost.
    let t7 = 1;
    const version = (taskId: string) => (taskId === 't7' ? t7 : 1);
    let versionReads = 0;
    const sweep = new VersionSweep({
      intervalMs: 3_600_000,
      readVersions: async (keys) => {
        versionReads += 1;
        return keys.map((k) => ({ ...k, version: version(k.taskId) }));
      },
    });
    const logReads: string[] = [];
    const delivered: string[] = [];
    const followers = Array.from({ length: STREAMS }, (_, i) =>
      new TaskEventFollower(
        {
          hub,
          sweep,
          tenantId: 'acme',
          taskId: `t${i}`,
          afterSeq: 0,
          readEvents: async (_tenant, taskId, after) => {
            logReads.push(taskId);
            return Array.from({ length: version(taskId) - after }, (_, k) => ({
              seq: after + k + 1,
              payload: { statusUpdate: { taskId, contextId: 'c', status: { state: TaskState.WORKING } } },
            }));
          },
        },
        {
          event: (e) => {
            delivered.push(`t${i}:${e.seq}`);
            return true;
          },
          failed: () => undefined,
        },
      ).start(),
    );
    await waitFor(() => logReads.length === STREAMS, { what: 'each first read' });
    logReads.length = 0;
    t7 = 2;

    for (const listener of listeners) listener('resync');
    await waitFor(() => delivered.includes('t7:2'), { what: "t7's missed event" });
    expect(versionReads).toBe(1);
    expect(logReads).toEqual(['t7']);
    for (const follower of followers) follower.close();
    sweep.close();
  });

  it('a resync sweep that fails (Postgres away too) is tried again soon, not after the interval', async () => {
    let failures = 2;
    let version = 1;
    const sweep = new VersionSweep({
      intervalMs: 3_600_000,
      readVersions: async (keys) => {
        if (failures-- > 0) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        return keys.map((k) => ({ ...k, version }));
      },
    });
    let hinted: HintListener = () => undefined;
    const seqs: number[] = [];
    const follower = new TaskEventFollower(
      {
        hub: { watch: (_t, _id, listener) => ((hinted = listener), () => undefined) },
        sweep,
        tenantId: 'acme',
        taskId: 't1',
        afterSeq: 0,
        readEvents: async (_tenant, taskId, after) =>
          Array.from({ length: version - after }, (_, k) => ({
            seq: after + k + 1,
            payload: { statusUpdate: { taskId, contextId: 'c', status: { state: TaskState.WORKING } } },
          })),
      },
      { event: (e) => (seqs.push(e.seq), true), failed: () => undefined },
    ).start();
    await waitFor(() => seqs.length === 1, { what: 'the first read' });
    version = 2;
    hinted('resync');
    await waitFor(() => seqs.includes(2), { what: 'the event after two failed sweeps' });
    follower.close();
    sweep.close();
  });
});
