import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal, TaskState } from '@switchyard/protocol';
import { startProcess, waitFor, type RunningProcess } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Real worker processes, killed, frozen and restarted (issue: engine/worker proof).
const STEPS = 20;
let p: Platform;
const procs: RunningProcess[] = [];

function startWorker(id: string, extra: Record<string, string> = {}): RunningProcess {
  const proc = startProcess('apps/worker/src/main.ts', {
    ...p.env(),
    WORKER_ID: id,
    LOG_LEVEL: 'info',
    ...extra,
  });
  procs.push(proc);
  return proc;
}

async function stepsAgent(id: string, delayMs: number) {
  return p.slowAgent(id, { steps: STEPS, delayMs });
}

async function sendAndWaitForOwner(agentId: string, owner: string, minChunks: number) {
  const r = await p.service.send(alice, (await p.admin.getAgent('acme', agentId))!, {
    message: userMessage('go'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in r)) throw new Error('expected a task');
  await waitFor(
    async () => {
      const rec = await p.store.getTaskRecord('acme', r.task.id);
      const chunks = (await p.store.readEvents('acme', r.task.id, 0)).filter(
        (e) => e.payload.artifactUpdate,
      ).length;
      return rec?.leaseOwner?.startsWith(`${owner}/`) && chunks >= minChunks;
    },
    { timeoutMs: 30_000, what: `task leased by ${owner} with ${minChunks} chunks` },
  );
  return r.task.id;
}

async function expectExactlyOnceChunks(taskId: string) {
  const final = await waitFor(
    async () => {
      const rec = await p.store.getTaskRecord('acme', taskId);
      return rec && isTerminal(rec.state) && rec;
    },
    { timeoutMs: 60_000, what: 'task terminal' },
  );
  expect(final.state).toBe(TaskState.COMPLETED);
  const task = await p.store.loadTaskView('acme', taskId, { includeArtifacts: true });
  const parts = task?.artifacts?.find((a) => a.artifactId === 'progress')?.parts.map((part) => part.text);
  expect(parts).toEqual(Array.from({ length: STEPS }, (_, i) => `step ${i + 1}/${STEPS}`));
  const chunkEvents = (await p.store.readEvents('acme', taskId, 0)).filter((e) => e.payload.artifactUpdate);
  expect(chunkEvents).toHaveLength(STEPS);
  return final;
}

beforeAll(async () => {
  p = await startPlatform({ leaseMs: 1500, reaperIntervalMs: 300 });
});
afterEach(async () => {
  for (const proc of procs.splice(0)) {
    proc.signal('SIGCONT');
    proc.signal('SIGKILL');
    await proc.exited;
  }
});
afterAll(() => p.close());

describe('worker processes', () => {
  it('a worker killed with SIGKILL mid-task: another finishes it, every chunk exactly once', async () => {
    await stepsAgent('steps-kill', 3000);
    const a = startWorker('worker-a');
    const taskId = await sendAndWaitForOwner('steps-kill', 'worker-a', 3);
    a.signal('SIGKILL');
    await a.exited;
    startWorker('worker-b');
    const final = await expectExactlyOnceChunks(taskId);
    expect(final.attempts).toBe(2);
  });

  it('a worker frozen (SIGSTOP) past its lease while another takes over: none of its writes land after resume', async () => {
    await stepsAgent('steps-freeze', 3000);
    const a = startWorker('worker-a');
    const taskId = await sendAndWaitForOwner('steps-freeze', 'worker-a', 3);
    a.signal('SIGSTOP');
    const b = startWorker('worker-b');
    await waitFor(
      async () => (await p.store.getTaskRecord('acme', taskId))?.leaseOwner?.startsWith('worker-b/'),
      {
        timeoutMs: 30_000,
        what: 'takeover by worker-b',
      },
    ).catch((e: unknown) => {
      console.log(b.lines.join('\n'));
      throw e;
    });
    a.signal('SIGCONT');
    await expectExactlyOnceChunks(taskId);
    // The resumed worker noticed it lost the lease and abandoned the run.
    await waitFor(() => a.logs().some((l) => l.taskId === taskId && l.msg === 'agent run stopped'), {
      what: 'worker-a abandons the run',
    });
  });

  it('cancel from this process while the task runs in a worker process: the agent sees its AbortSignal within a second', async () => {
    await stepsAgent('steps-cancel', 20_000);
    const a = startWorker('worker-a');
    const taskId = await sendAndWaitForOwner('steps-cancel', 'worker-a', 1);
    const canceled = await p.service.cancelTask(alice, 'steps-cancel', taskId);
    expect(canceled.status.state).toBe(TaskState.CANCELED);
    // The promise is "within a second"; the pub/sub cancel hint normally takes milliseconds.
    await waitFor(
      () =>
        a.logs().some((l) => l.taskId === taskId && l.msg === 'agent run stopped' && l.reason === 'canceled'),
      {
        timeoutMs: 1000,
        what: 'abort observed by the agent',
      },
    );
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.CANCELED);
  });

  it('a worker killed with SIGKILL just before a cancel: once its lease lapses, another worker tells the agent', async () => {
    await stepsAgent('steps-unheard', 20_000);
    const a = startWorker('worker-a');
    const taskId = await sendAndWaitForOwner('steps-unheard', 'worker-a', 1);
    a.signal('SIGKILL');
    await a.exited;
    // The dead worker's lease has not lapsed yet: no run will ever hear this cancel.
    expect((await p.service.cancelTask(alice, 'steps-unheard', taskId)).status.state).toBe(
      TaskState.CANCELED,
    );
    const b = startWorker('worker-b');
    await waitFor(
      () =>
        b
          .logs()
          .some((l) => l.taskId === taskId && l.msg === 'the run never heard the cancel; telling the agent'),
      { timeoutMs: 30_000, what: 'worker-b gives the cancel notice' },
    );
    await waitFor(async () => (await p.store.getTaskRecord('acme', taskId))?.leaseOwner === null, {
      what: 'the notice’s lease released',
    });
  });

  it('two worker processes given the same task at once: one runs it', async () => {
    await stepsAgent('steps-two', 500);
    startWorker('worker-a');
    startWorker('worker-b');
    const r = await p.service.send(alice, (await p.admin.getAgent('acme', 'steps-two'))!, {
      message: userMessage('go'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in r)) throw new Error('expected a task');
    // A second dispatch of the same run (as a duplicate enqueue would produce).
    const { TaskQueue } = await import('@switchyard/queue');
    const queue = new TaskQueue({ connection: p.redis.connect(), keys: p.keys });
    await queue.enqueue({ tenantId: 'acme', taskId: r.task.id, version: 1, attempts: 0, nonce: 'duplicate' });
    const final = await expectExactlyOnceChunks(r.task.id);
    expect(final.attempts).toBe(1);
    await queue.close();
  });

  it('SIGTERM drains: running agents get the grace period, then their tasks are handed back and finish elsewhere', async () => {
    await stepsAgent('steps-drain', 4000);
    const a = startWorker('worker-a', { SHUTDOWN_GRACE_MS: '300' });
    const taskId = await sendAndWaitForOwner('steps-drain', 'worker-a', 2);
    a.signal('SIGTERM');
    expect(await a.exited).toBe(0);
    // Handed back: no lease, the attempt refunded, so the next run is attempt 1 again.
    const handedBack = await p.store.getTaskRecord('acme', taskId);
    expect(handedBack?.leaseOwner).toBeNull();
    startWorker('worker-b');
    const final = await expectExactlyOnceChunks(taskId);
    expect(final.attempts).toBe(1);
  });

  it('SIGTERM lets a short run finish within the grace period; a second signal forces exit', async () => {
    await stepsAgent('steps-grace', 600);
    const a = startWorker('worker-a', { SHUTDOWN_GRACE_MS: '10000' });
    const taskId = await sendAndWaitForOwner('steps-grace', 'worker-a', 1);
    a.signal('SIGTERM');
    expect(await a.exited).toBe(0);
    const record = await p.store.getTaskRecord('acme', taskId);
    expect(record?.state).toBe(TaskState.COMPLETED);

    await stepsAgent('steps-force', 20_000);
    const b = startWorker('worker-b', { SHUTDOWN_GRACE_MS: '60000' });
    await sendAndWaitForOwner('steps-force', 'worker-b', 1);
    b.signal('SIGTERM');
    await waitFor(() => b.logs().some((l) => l.msg === 'draining'));
    b.signal('SIGTERM');
    expect(await b.exited).toBe(1);
  });
});
