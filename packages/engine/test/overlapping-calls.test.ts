import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { queuedEchoTask, bareRunner, startPlatform, storeWith, type Platform } from './platform-fixture.ts';

// Found in review: an agent's calls each read and set the chunk held back for the next write and
// the version that write expects. Two at once lost a chunk with no error: `Promise.all` of two
// emits stored only the second, and an emit not awaited before complete() came after the ending,
// was refused, and read as a cancel. Calls now run one after another, in the order they were made.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: 30_000 });
});
afterAll(() => p.close());

const chunk = (artifactId: string, text: string) => ({
  artifactId,
  parts: [{ text }],
  append: false,
  lastChunk: true,
});

async function runWith(execute: Agent['execute'], store = p.store) {
  const taskId = await queuedEchoTask(p);
  const agent: Agent = { executor: 'echo', card: { name: 'echo' } as Agent['card'], execute };
  await bareRunner({ ...p, store }, { agent, workerId: 'w' }).run({ tenantId: 'acme', taskId });
  const task = await p.store.loadTaskView('acme', taskId, { includeArtifacts: true });
  return task;
}

describe('a chunk whose parts the agent reuses after emitting it', () => {
  // Found in review: a chunk is written one step behind the call, and the run kept the agent's
  // parts array: an agent that refilled it for its next chunk had the first stored with the
  // second's content (and past the artifact limit, counted before the change).
  it('is stored as it was when emitted', async () => {
    const task = await runWith(async (ctx) => {
      const parts = [{ text: 'first' }];
      const metadata: Record<string, unknown> = { n: 1 };
      await ctx.emitArtifact({ artifactId: 'a', parts, metadata });
      parts[0] = { text: 'second' };
      metadata['n'] = 2;
      await ctx.emitArtifact({ artifactId: 'a', parts, metadata, append: true, lastChunk: true });
      await ctx.complete();
    });
    expect(task?.artifacts?.[0]?.parts).toEqual([{ text: 'first' }, { text: 'second' }]);
  });
});

describe("an agent's calls made without waiting for each other", () => {
  it('two emits at once: both chunks are stored, in the order they were made', async () => {
    const task = await runWith(async (ctx) => {
      await Promise.all([ctx.emitArtifact(chunk('a', 'first')), ctx.emitArtifact(chunk('b', 'second'))]);
      await ctx.complete();
    });
    expect(task?.status.state).toBe(TaskState.COMPLETED);
    expect(task?.artifacts?.map((a) => [a.artifactId, a.parts[0]?.text])).toEqual([
      ['a', 'first'],
      ['b', 'second'],
    ]);
  });

  it('an emit not awaited before complete(): the chunk goes in with the ending, and the run finished', async () => {
    let ended: unknown;
    const task = await runWith(async (ctx) => {
      void ctx.emitArtifact(chunk('late', 'last words'));
      await ctx.complete();
      ended = ctx.signal.aborted ? ctx.signal.reason : 'not stopped';
    });
    expect(task?.status.state).toBe(TaskState.COMPLETED);
    expect(task?.artifacts?.map((a) => a.parts[0]?.text)).toEqual(['last words']);
    expect(ended).toBe('not stopped');
  });

  it('an ending not awaited before the agent returns is the ending: the runner completes nothing', async () => {
    const task = await runWith(async (ctx) => {
      void ctx.requestInput({ parts: [{ text: 'which one?' }] });
    });
    expect(task?.status.state).toBe(TaskState.INPUT_REQUIRED);
    expect(task?.status.message?.parts).toEqual([{ text: 'which one?' }]);
  });

  it('an ending that failed to be written, and that the agent let go, is not answered by COMPLETED: the task goes back, to be run again', async () => {
    let failed = false;
    const store = storeWith(p.store, 'changeTask', (real) => async (input) => {
      if (input.patch.state === TaskState.INPUT_REQUIRED && !failed) {
        failed = true;
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      }
      return real(input);
    });
    // The agent ignores its ending's failure (unawaited, it would be an unhandled rejection).
    const task = await runWith(async (ctx) => {
      void ctx.requestInput({ parts: [{ text: 'which one?' }] }).catch(() => undefined);
    }, store);
    expect(failed).toBe(true);
    // Not COMPLETED: the task waits WORKING for its next run. Postgres lost the write, not the
    // agent: the task is handed back with its attempt refunded (store-outage-refund.test.ts).
    expect(task?.status.state).toBe(TaskState.WORKING);
    const record = await p.store.getTaskRecord('acme', task?.id ?? '');
    expect(record).toMatchObject({ leaseOwner: null, attempts: 0 });
  });

  it('an emit not awaited before the agent returns is written before the runner completes the task', async () => {
    const task = await runWith(async (ctx) => {
      void ctx.emitArtifact(chunk('tail', 'after return'));
    });
    expect(task?.status.state).toBe(TaskState.COMPLETED);
    expect(task?.artifacts?.map((a) => a.parts[0]?.text)).toEqual(['after return']);
  });
});
