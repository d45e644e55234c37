import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// A run listens for cancels only after its first moments (task-runner's watchForCancel): these
// prove a cancel is heard both before and after that point by an agent that never writes.
let p: Platform;
// A run may start before the test has its task id back from the send: remember starts, so the
// test's wait resolves whichever comes first.
const started = new Set<string>();
const onStart = new Map<string, () => void>();
const markStarted = (id: string) => {
  started.add(id);
  onStart.get(id)?.();
};
const whenStarted = (id: string) =>
  new Promise<void>((resolve) => (started.has(id) ? resolve() : onStart.set(id, resolve)));
const aborted = new Set<string>();
const quiet: Agent = {
  executor: 'quiet',
  card: {
    name: 'quiet',
    description: 'waits for its signal without writing anything',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    markStarted(ctx.task.id);
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    aborted.add(ctx.task.id);
  },
};

const wrote = new Set<string>();
const slowWriter: Agent = {
  ...quiet,
  executor: 'slow-writer',
  card: { ...quiet.card, name: 'slow-writer', description: 'one slow status write, then waits' },
  async execute(ctx) {
    markStarted(ctx.task.id);
    await ctx.setStatus({ parts: [{ text: 'slow' }] });
    wrote.add(ctx.task.id);
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    aborted.add(ctx.task.id);
  },
};
const agents: Record<string, Agent> = { quiet, 'slow-writer': slowWriter };

beforeAll(async () => {
  // A lease well past the slow write below (2 s of pg_sleep, and the trigger slows every lease
  // renewal of that task as much). With the fixture's 1.5 s lease it lapsed during the write, and
  // on a loaded machine the reaper sometimes took the task over mid-test: the run the test
  // follows was fenced, its write never landed, and the test timed out.
  p = await startPlatform({ leaseMs: 15_000 });
  await p.registerAgent(quiet);
  await p.registerAgent(slowWriter);
  p.startWorker({ findAgent: (e) => agents[e] ?? findBundledAgent(e) });
});
afterAll(() => p.close());

async function runAndCancel(delayBeforeCancelMs: number) {
  const agent = (await p.admin.getAgent('acme', 'quiet'))!;
  const r = await p.service.send(alice, agent, {
    message: userMessage('wait'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in r)) throw new Error('expected a task');
  const id = r.task.id;
  await whenStarted(id);
  if (delayBeforeCancelMs) await new Promise((resolve) => setTimeout(resolve, delayBeforeCancelMs));
  const canceled = await p.service.cancelTask(alice, 'quiet', id);
  expect(canceled.status.state).toBe(TaskState.CANCELED);
  await waitFor(() => aborted.has(id), { what: 'the agent to see its abort signal' });
}

describe('a running agent hears a cancel', () => {
  it('sent at once, before the run listens for cancels (it reads the task when it starts listening)', async () => {
    await runAndCancel(0);
  });

  it('sent after the run listens (the cancel hint)', async () => {
    await runAndCancel(300);
  });
});

describe('while a run waits on its own write', () => {
  it('it does not start listening (the write catches a cancel), and listens once the write is done', async () => {
    // A real slow write: Postgres sleeps in every status update of this test's context.
    await p.db.pool.query(`
      CREATE FUNCTION slow_status() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.state = 'TASK_STATE_WORKING' AND NEW.state = 'TASK_STATE_WORKING' AND NEW.context_id = 'slow-writes' THEN
          PERFORM pg_sleep(2);
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER slow_status BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION slow_status();
    `);
    try {
      const agent = (await p.admin.getAgent('acme', 'slow-writer'))!;
      const r = await p.service.send(alice, agent, {
        message: userMessage('wait', { contextId: 'slow-writes' }),
        configuration: { returnImmediately: true },
      });
      if (!('task' in r)) throw new Error('expected a task');
      const id = r.task.id;
      await whenStarted(id);
      const redis = p.redis.connect();
      const listeners = async () =>
        Number(((await redis.pubsub('NUMSUB', p.keys.taskChannel('acme', id))) as [string, number])[1]);
      // Well past CANCEL_WATCH_AFTER_MS, and the write still has most of its 2 s to go (a margin
      // wide enough for a loaded machine's late timers).
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(wrote.has(id)).toBe(false);
      expect(await listeners()).toBe(0);
      await waitFor(() => wrote.has(id), { what: 'the slow write' });
      await waitFor(async () => (await listeners()) === 1, { what: 'the run to listen for cancels' });
      const canceled = await p.service.cancelTask(alice, 'slow-writer', id);
      expect(canceled.status.state).toBe(TaskState.CANCELED);
      await waitFor(() => aborted.has(id), { what: 'the agent to see its abort signal' });
    } finally {
      await dropSlowStatus();
    }
  });
});

/**
 * The drop locks every partition of tasks while the worker may be writing one: a deadlock
 * Postgres breaks by failing the drop, which is tried again (seen in a full-suite run).
 */
async function dropSlowStatus(): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await p.db.pool.query('DROP TRIGGER slow_status ON tasks; DROP FUNCTION slow_status()');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
    }
  }
}
