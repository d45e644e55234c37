import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// A claim commits without waiting for its WAL flush (claim-task.ts), so a Postgres crash right
// after it can lose it. A lost claim must be a lost lease: the run it started is fenced and the
// task runs again, once, to its end. The crash is played by putting the row and log back as they
// were before the claim while its run is under way.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

describe('a claim lost to a Postgres crash', () => {
  it('fences the run it started; the reaper runs the task again and it completes once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const runs: string[] = [];
    const agent: Agent = {
      executor: 'echo',
      card: { name: 'echo' } as Agent['card'],
      async execute(ctx) {
        runs.push(ctx.task.id);
        if (runs.length === 1) await gate;
        await ctx.emitArtifact({ artifactId: 'a', parts: [{ text: `run ${runs.length}` }], lastChunk: true });
        await ctx.complete();
      },
    };
    p.startWorker({ findAgent: () => agent });
    const sent = await p.service.send(alice, await p.agent('echo'), {
      message: userMessage('x'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const id = sent.task.id;
    await waitFor(() => runs.length === 1, { what: 'the first run to start' });
    // The crash loses the claim: the row as created, the WORKING event gone.
    await p.db.pool.query(
      `WITH gone AS (DELETE FROM task_events WHERE tenant_id = 'acme' AND task_id = $1 AND seq > 1)
       UPDATE tasks SET state = $2, version = 1, lease_owner = NULL, lease_expires_at = NULL, attempts = 0
        WHERE tenant_id = 'acme' AND id = $1`,
      [id, TaskState.SUBMITTED],
    );
    release();
    const done = await waitFor(
      async () => {
        const t = await p.store.getTaskRecord('acme', id);
        return t?.state === TaskState.COMPLETED ? t : null;
      },
      { timeoutMs: 15_000, what: 'the task completed by a second run' },
    );
    expect(runs).toEqual([id, id]);
    const events = await p.store.readEvents('acme', id, 0, 100);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
    const texts = events.flatMap(
      (e) => e.payload.artifactUpdate?.artifact.parts.map((part) => part.text) ?? [],
    );
    expect(texts).toEqual(['run 2']);
    expect(done.attempts).toBe(1);
  });
});
