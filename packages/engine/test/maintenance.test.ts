import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { createWorkerRuntime, type WorkerOptions } from '../src/index.ts';
import { createLogger, silentLogger } from '@switchyard/telemetry';
import { createSecretBox } from '@switchyard/store';
import { waitFor } from '@switchyard/testing';
import { alice, SECRET, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

/** A worker with only the given maintenance: both jobs are on unless turned off here. */
function maintenanceWorker(
  maintenance: Pick<WorkerOptions, 'retention' | 'tableUpkeepEveryMs'>,
  extra: Partial<Pick<WorkerOptions, 'log' | 'findAgent' | 'shutdownGraceMs'>> = {},
) {
  return createWorkerRuntime({
    pool: p.db.pool,
    redis: p.redis.connect(),
    subscriber: p.redis.connect(),
    keys: p.keys,
    secrets: createSecretBox(SECRET),
    log: silentLogger(),
    concurrency: 2,
    engine: p.config,
    ...maintenance,
    ...extra,
  });
}

/** A logger whose lines (their `msg`) a test reads. */
function capturedLog() {
  const messages: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        messages.push((JSON.parse(line) as { msg: string }).msg);
      done();
    },
  });
  return { messages, log: createLogger({ name: 'worker', destination }) };
}

describe('maintenance schedules (ARCHITECTURE.md §8)', () => {
  it('the worker runs retention on its schedule and removes expired terminal tasks', async () => {
    const worker = maintenanceWorker({
      retention: {
        everyMs: 1000,
        terminalTaskTtlMs: 1000,
        eventTtlMs: 1000,
        idempotencyTtlMs: 1000,
        deliveredPushTtlMs: 1000,
      },
      tableUpkeepEveryMs: false,
    });
    worker.start();
    try {
      const r = await p.service.send(alice, await p.agent('echo'), { message: userMessage('short-lived') });
      if (!('task' in r)) throw new Error('expected a task');
      await waitFor(async () => (await p.store.getTaskRecord('acme', r.task.id)) === null, {
        timeoutMs: 20_000,
        what: 'retention deletes the task',
      });
      expect(await p.store.readEvents('acme', r.task.id, 0)).toEqual([]);
    } finally {
      await worker.stop();
    }
  });

  it('the worker keeps table statistics current on its schedule (store upkeepTables)', async () => {
    const analyzeCount = async () =>
      Number(
        (
          await p.db.pool.query<{ n: string }>(
            `SELECT coalesce(sum(analyze_count + autoanalyze_count), 0) AS n
               FROM pg_stat_user_tables WHERE relname ~ '^tasks_p[0-9]$'`,
          )
        ).rows[0]!.n,
      );
    const before = await analyzeCount();
    const client = await p.db.pool.connect();
    try {
      await client.query(
        `INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
         SELECT 'upkeep', gen_random_uuid(), 'c', 'echo', 'alice', 'task', 'TASK_STATE_COMPLETED', 3, now()
           FROM generate_series(1, 500)`,
      );
      await client.query('SELECT pg_stat_force_next_flush()');
    } finally {
      client.release();
    }
    const worker = maintenanceWorker({ retention: false, tableUpkeepEveryMs: 1000 });
    worker.start();
    try {
      await waitFor(async () => (await analyzeCount()) > before, {
        timeoutMs: 20_000,
        what: 'the upkeep job analyzes the grown partition',
      });
    } finally {
      await worker.stop();
    }
  });

  it('a draining worker sweeps and runs maintenance no more while its runs finish', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const held: Agent = {
      executor: 'echo',
      card: { name: 'echo' } as Agent['card'],
      async execute(ctx) {
        started = true;
        await gate;
        await ctx.complete();
      },
    };
    const { messages, log } = capturedLog();
    const worker = maintenanceWorker(
      { retention: { everyMs: 100 }, tableUpkeepEveryMs: false },
      { log, findAgent: () => held, shutdownGraceMs: 30_000 },
    );
    let sweeps = 0;
    const sweep = worker.reaper.sweep.bind(worker.reaper);
    worker.reaper.sweep = () => (sweeps++, sweep());
    worker.start();
    await p.service.send(alice, await p.agent('echo'), {
      message: userMessage('hold'),
      configuration: { returnImmediately: true },
    });
    await waitFor(() => started, { what: 'the held run to start' });
    await waitFor(() => sweeps > 0 && messages.includes('retention run'), {
      what: 'a sweep and a retention run before the drain',
    });
    const stopping = worker.stop();
    await waitFor(() => worker.state === 'draining');
    // What was under way as the drain began may finish; nothing starts after it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [sweepsAtDrain, retentionAtDrain] = [sweeps, messages.filter((m) => m === 'retention run').length];
    // Three reaper intervals and fifteen retention periods: each would have run again.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sweeps).toBe(sweepsAtDrain);
    expect(messages.filter((m) => m === 'retention run')).toHaveLength(retentionAtDrain);
    release();
    await stopping;
    expect(worker.state).toBe('stopped');
  });
});
