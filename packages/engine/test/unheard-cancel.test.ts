import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { TaskQueue } from '@switchyard/queue';
import type { PostgresTaskStore } from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { TaskRunner } from '../src/index.ts';
import { alice, quietWriter, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// A cancel that comes while the task's worker is dead or frozen, its lease not yet lapsed: no run
// hears it, so once the lease lapses unreleased a worker calls the agent's onCanceled (an upstream
// agent cancels its remote task there). A run that hears the cancel stops its agent instead, and
// onCanceled is not called as well.
let p: Platform;
let queue: TaskQueue;
const told: string[] = [];
const started: string[] = [];
const aborted: string[] = [];
const card = {
  version: '1.0.0',
  skills: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
};
/** Works elsewhere until stopped (or finishes at once when asked to), and cleans up on onCanceled. */
const remote: Agent = {
  executor: 'remote',
  card: { ...card, name: 'remote', description: 'works on a remote task' },
  async execute(ctx) {
    started.push(ctx.task.id);
    if (ctx.message.parts[0]?.text === 'finish') return ctx.complete('done');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    aborted.push(ctx.task.id);
  },
  async onCanceled({ taskId }) {
    told.push(taskId);
  },
};
const findAgent = (executor: string) => (executor === 'remote' ? remote : findBundledAgent(executor));
const count = (list: string[], id: string) => list.filter((x) => x === id).length;

beforeAll(async () => {
  p = await startPlatform({ leaseMs: 600, stopGraceMs: 300 });
  await p.registerAgent(remote);
  queue = new TaskQueue({ connection: p.redis.connect(), keys: p.keys });
});
afterAll(async () => {
  await queue.close();
  await p.close();
});

async function sendRemote(text = 'work'): Promise<string> {
  const sent = await p.service.send(alice, await p.agent('remote'), {
    message: userMessage(text),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task.id;
}

/** The task's jobs still in the queue (waiting, delayed or running). */
async function jobsOf(taskId: string): Promise<number> {
  const jobs = await queue.queue.getJobs(['wait', 'prioritized', 'delayed', 'active']);
  return jobs.filter((job) => (job?.data as { taskId?: string } | undefined)?.taskId === taskId).length;
}

/** Waits until the task holds no lease and every job of it has run. */
async function settled(taskId: string): Promise<void> {
  await waitFor(
    async () =>
      (await p.store.getTaskRecord('acme', taskId))?.leaseOwner === null && (await jobsOf(taskId)) === 0,
    { what: 'lease released and no job left' },
  );
}

/** Another dispatch of the task, as BullMQ gives a dead worker's job back once its lock lapses. */
async function dispatchAgain(taskId: string): Promise<void> {
  const { version, attempts } = (await p.store.getTaskRecord('acme', taskId))!;
  await queue.enqueue({ tenantId: 'acme', taskId, version, attempts, nonce: 'given-back' });
}

describe('the cancel notice when the run never hears the cancel', () => {
  it('a worker died holding the lease: once the lease lapses, onCanceled is called exactly once', async () => {
    const taskId = await sendRemote();
    // The dead worker: it claimed the task and will never renew, release or hear anything.
    const claim = await p.store.claimTask({ tenantId: 'acme', taskId, workerId: 'dead', leaseMs: 2000 });
    expect(claim).not.toBeNull();
    expect((await p.service.cancelTask(alice, 'remote', taskId)).status.state).toBe(TaskState.CANCELED);
    const worker = p.startWorker({ findAgent });
    try {
      await waitFor(() => told.includes(taskId), { what: 'onCanceled' });
      await settled(taskId);
      await dispatchAgain(taskId);
      await settled(taskId);
      expect(count(told, taskId)).toBe(1);
      expect(started).not.toContain(taskId);
    } finally {
      await worker.stop();
    }
  });

  it('the check the cancel scheduled was lost with Redis: the reaper finds the kept lease and the agent is told once', async () => {
    const taskId = await sendRemote();
    const claim = await p.store.claimTask({ tenantId: 'acme', taskId, workerId: 'dead', leaseMs: 2000 });
    expect(claim).not.toBeNull();
    await p.service.cancelTask(alice, 'remote', taskId);
    // The cancel's delayed check (and the run's own job) gone, as a FLUSHALL would take them.
    await waitFor(async () => (await jobsOf(taskId)) > 0, { what: 'the scheduled check' });
    const jobs = await queue.queue.getJobs(['wait', 'prioritized', 'delayed']);
    for (const job of jobs) if ((job?.data as { taskId?: string }).taskId === taskId) await job!.remove();
    expect(await jobsOf(taskId)).toBe(0);
    const worker = p.startWorker({ findAgent });
    try {
      await waitFor(() => told.includes(taskId), { what: 'onCanceled, through the reaper' });
      await settled(taskId);
      expect(count(told, taskId)).toBe(1);
      expect(started).not.toContain(taskId);
    } finally {
      await worker.stop();
    }
  });

  it('a worker froze holding the lease and resumes after the notice: onCanceled once, and its agent is stopped', async () => {
    const taskId = await sendRemote();
    const gate = freezable();
    const store = gate.wrap(p.store);
    // Freezes the whole run's view of Postgres as its agent starts, as SIGSTOP would.
    const freezing: Agent = { ...remote, execute: (ctx) => (gate.freeze(), remote.execute(ctx)) };
    const frozen = new TaskRunner({
      store,
      writer: quietWriter(store),
      dispatcher: { enqueue: async () => undefined },
      hub: { watch: () => () => undefined },
      agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
      findAgent: () => freezing,
      config: p.config,
      workerId: 'frozen',
      log: silentLogger(),
    });
    const run = frozen.run({ tenantId: 'acme', taskId });
    await waitFor(() => started.includes(taskId), { what: 'the frozen run’s agent started' });
    await p.service.cancelTask(alice, 'remote', taskId);
    const worker = p.startWorker({ findAgent });
    try {
      await waitFor(() => told.includes(taskId), { what: 'onCanceled' });
      await settled(taskId);
      gate.resume();
      await run;
      // Resumed, the run hears the cancel (its renewal is refused) and stops its agent: the
      // documented second clean-up. Its release finds the lease gone, and no notice follows.
      expect(count(aborted, taskId)).toBe(1);
      await dispatchAgain(taskId);
      await settled(taskId);
      expect(count(told, taskId)).toBe(1);
    } finally {
      gate.resume();
      await worker.stop();
    }
  });
});

describe('no notice besides the run’s own', () => {
  it('a live run hears the cancel: its agent stops once, the lease is released, onCanceled is not called', async () => {
    const worker = p.startWorker({ findAgent });
    try {
      const taskId = await sendRemote();
      await waitFor(() => started.includes(taskId), { what: 'agent started' });
      await p.service.cancelTask(alice, 'remote', taskId);
      await waitFor(() => aborted.includes(taskId), { what: 'agent stopped' });
      // The check the cancel scheduled for after the lease runs out has run, and found it released.
      await waitFor(async () => (await jobsOf(taskId)) > 0, { what: 'the scheduled check' });
      await settled(taskId);
      expect(count(aborted, taskId)).toBe(1);
      expect(told).not.toContain(taskId);
    } finally {
      await worker.stop();
    }
  });

  it('a task completed normally never gets a notice', async () => {
    const worker = p.startWorker({ findAgent });
    try {
      const taskId = await sendRemote('finish');
      await waitFor(async () => (await p.store.getTaskRecord('acme', taskId))?.state === TaskState.COMPLETED);
      await dispatchAgain(taskId);
      await settled(taskId);
      expect(told).not.toContain(taskId);
    } finally {
      await worker.stop();
    }
  });

  // Found in review: a disabled tenant's runs do not start (task-runner.ts), and the notice's
  // dispatch was dropped with them, so the agent never heard a cancel made before the disable.
  it('a disabled tenant’s canceled task still gets its notice', async () => {
    const taskId = await sendRemote();
    await p.store.claimTask({ tenantId: 'acme', taskId, workerId: 'dead', leaseMs: 1000 });
    expect((await p.service.cancelTask(alice, 'remote', taskId)).status.state).toBe(TaskState.CANCELED);
    await p.admin.setTenantDisabled('acme', true);
    const worker = p.startWorker({ findAgent });
    try {
      await waitFor(() => told.includes(taskId), { what: 'onCanceled for a disabled tenant' });
      await settled(taskId);
      expect(count(told, taskId)).toBe(1);
    } finally {
      await p.admin.setTenantDisabled('acme', false);
      await worker.stop();
    }
  });
});

/** Holds every store call made while frozen until resumed: a process stopped, then continued. */
function freezable() {
  let frozen: { done: Promise<void>; resume: () => void } | null = null;
  return {
    freeze() {
      let resume!: () => void;
      const done = new Promise<void>((r) => (resume = r));
      frozen ??= { done, resume };
    },
    resume() {
      frozen?.resume();
      frozen = null;
    },
    wrap(store: PostgresTaskStore): PostgresTaskStore {
      return new Proxy(store, {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          if (typeof value !== 'function') return value;
          const method = (value as (...a: unknown[]) => Promise<unknown>).bind(target);
          return async (...args: unknown[]) => {
            await frozen?.done;
            return method(...args);
          };
        },
      });
    },
  };
}
