import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import type { TaskRunner } from '../src/index.ts';
import { alice, bareRunner, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Found in review: the lease owner used to be the worker process's id, so when a stalled process's
// lease lapsed and the reaper's re-dispatch came back to the same process, the stale run's writes
// still matched the lease and both runs wrote chunks. Each claim now leases under its own token.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: 6_000 });
});
afterAll(() => p.close());

/**
 * An agent that emits six chunks. Its first run waits at the third until `releaseFirst()`, its
 * second at the fifth until `releaseSecond()`: the stale run wakes while the new one is mid-way.
 */
function gatedAgent(card: Agent['card']) {
  let releaseFirst!: () => void;
  let releaseSecond!: () => void;
  const gates = [new Promise<void>((r) => (releaseFirst = r)), new Promise<void>((r) => (releaseSecond = r))];
  const runs: number[] = [];
  const agent: Agent = {
    executor: 'echo',
    card,
    async execute(ctx) {
      const run = runs.length + 1;
      runs.push(run);
      // Chunks an earlier run stored are skipped by the run context (each is stored once).
      for (let k = 0; k < 6; k++) {
        if (run === 1 && k === 2) await gates[0];
        if (run === 2 && k === 4) await gates[1];
        await ctx.emitArtifact({ artifactId: 'a', parts: [{ text: `r${run}-k${k}` }], append: k > 0 });
      }
      await ctx.complete();
    },
  };
  return { agent, runs, releaseFirst, releaseSecond };
}

function runner(agent: Agent) {
  return bareRunner(p, { agent, workerId: 'same-process' });
}

async function startedTask(): Promise<string> {
  const sent = await p.service.send(alice, await p.agent('echo'), {
    message: userMessage('hello'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task.id;
}

async function chunkTexts(taskId: string): Promise<string[]> {
  const { rows } = await p.db.pool.query<{ t: string }>(
    "SELECT parts->0->>'text' AS t FROM artifact_chunks WHERE tenant_id = 'acme' AND task_id = $1 ORDER BY seq",
    [taskId],
  );
  return rows.map((r) => r.t);
}

/** The stalled run's lease lapses and the reaper's guarded requeue runs, as in production. */
async function lapseAndRequeue(taskId: string): Promise<void> {
  await p.db.pool.query(
    "UPDATE tasks SET lease_expires_at = now() - interval '1 second' WHERE tenant_id = 'acme' AND id = $1",
    [taskId],
  );
  const leaseOwner = (await p.store.getTaskRecord('acme', taskId))!.leaseOwner!;
  const recovered = await p.store.recoverLapsedLease({
    tenantId: 'acme',
    taskId,
    leaseOwner,
    maxAttempts: 3,
    backoffMs: () => 0,
    failEvent: () => {
      throw new Error('not failing here');
    },
  });
  expect(recovered.outcome).toBe('requeued');
}

async function waitForChunks(taskId: string, n: number): Promise<void> {
  while ((await chunkTexts(taskId)).length < n) await new Promise((r) => setTimeout(r, 20));
}

/**
 * Run 1 stores two chunks and stalls; its lease lapses and the reaper requeues the task; run 2
 * (from `runnerFor(2)`) re-claims it and stores two more; run 1 wakes, then run 2 finishes.
 */
async function staleRunRace(runnerFor: (run: 1 | 2, agent: Agent) => TaskRunner) {
  const card = (await p.agent('echo')).card as unknown as Agent['card'];
  const { agent, runs, releaseFirst, releaseSecond } = gatedAgent(card);
  const taskId = await startedTask();
  const first = runnerFor(1, agent).run({ tenantId: 'acme', taskId });
  await waitForChunks(taskId, 2);
  await lapseAndRequeue(taskId);
  const second = runnerFor(2, agent).run({ tenantId: 'acme', taskId });
  await waitForChunks(taskId, 4);
  releaseFirst();
  await first;
  releaseSecond();
  await second;
  return { taskId, runs };
}

describe('a stale run re-claimed by its own worker process', () => {
  it('is stopped by the new claim in the same runner, and every chunk is stored once', async () => {
    let worker: TaskRunner | undefined;
    const { taskId, runs } = await staleRunRace((_run, agent) => (worker ??= runner(agent)));
    expect(runs).toEqual([1, 2]);
    expect(await chunkTexts(taskId)).toEqual(['r1-k0', 'r1-k1', 'r2-k2', 'r2-k3', 'r2-k4', 'r2-k5']);
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.COMPLETED);
  });

  it('is fenced by the lease token even where nothing stops it (two runners, one worker id)', async () => {
    const { taskId, runs } = await staleRunRace((_run, agent) => runner(agent));
    expect(runs).toEqual([1, 2]);
    expect(await chunkTexts(taskId)).toEqual(['r1-k0', 'r1-k1', 'r2-k2', 'r2-k3', 'r2-k4', 'r2-k5']);
    const events = await p.store.readEvents('acme', taskId, 0);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.COMPLETED);
  });
});
