import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { waitFor } from '@switchyard/testing';
import { queuedEchoTask, bareRunner, startPlatform, type Platform } from './platform-fixture.ts';

// Found in review: a chunk write set the state WORKING again, which counted as a status change and
// moved the task's status time (GetTask's status.timestamp, what ListTasks filters on) with no
// status event behind it. A chunk is no status change.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: 30_000 });
});
afterAll(() => p.close());

describe('an artifact chunk', () => {
  it('leaves the status time at the last status event', async () => {
    const taskId = await queuedEchoTask(p);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let chunked = false;
    const agent: Agent = {
      executor: 'echo',
      card: { name: 'echo' } as Agent['card'],
      async execute(ctx) {
        await ctx.emitArtifact({
          artifactId: 'a',
          parts: [{ text: 'one' }],
          append: false,
          lastChunk: false,
        });
        await ctx.emitArtifact({ artifactId: 'a', parts: [{ text: 'two' }], append: true, lastChunk: true });
        chunked = true;
        await gate;
        await ctx.complete();
      },
    };
    const run = bareRunner(p, { agent, workerId: 'w' }).run({ tenantId: 'acme', taskId });
    await waitFor(() => chunked);
    await waitFor(async () => (await p.store.readEvents('acme', taskId, 0, 10)).length >= 3);
    const events = await p.store.readEvents('acme', taskId, 0, 10);
    const working = events.find((e) => e.payload.statusUpdate?.status.state === 'TASK_STATE_WORKING')!;
    const record = (await p.store.getTaskRecord('acme', taskId))!;
    expect(events.some((e) => e.payload.artifactUpdate)).toBe(true);
    expect(record.statusTimestamp.toISOString()).toBe(working.payload.statusUpdate!.status.timestamp);
    release();
    await run;
  });
});
