import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@switchyard/testing';
import type { BenchReport } from '../src/report/bench-report.ts';

// The benchmark command's smoke mode, run the way CI runs it: real processes, a separate load
// generator, every section present with figures that mean something was measured. No timing is
// asserted: speed is what the benchmark reports, not what a test checks.
function runSmoke(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bench/src/main.ts', '--smoke', '--json'], {
      cwd: REPO_ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const positive = (v: number) => expect(v).toBeGreaterThan(0);

describe('pnpm bench --smoke', () => {
  it('measures every section against the real processes', { timeout: 600_000 }, async () => {
    const run = await runSmoke();
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    const r = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as BenchReport;

    for (const c of [r.ceilings.bullmq, r.ceilings.postgresCas, r.ceilings.postgresCasEvent])
      positive(c.perSecond);
    for (const v of Object.values(r.ratios)) positive(v);

    for (const e of [r.saturation, ...r.openLoop]) {
      positive(e.completed);
      expect(e.submitErrors).toBe(0);
      positive(e.tasksPerSecond);
      positive(e.submit.latencyMs.p99);
      positive(e.completionMs.p99);
      positive(e.dispatchMs.p95);
    }
    expect(r.openLoop.length).toBeGreaterThan(0);

    for (const q of [r.requests.blockingSend, r.requests.getTask, r.requests.listTasks]) {
      positive(q.ops);
      expect(q.errors).toBe(0);
      positive(q.latencyMs.p50);
    }

    positive(r.fanout.deliveries);
    expect(r.fanout.errors).toBe(0);
    positive(r.fanout.latencyMs.p99);
    positive(r.push.deliveries);
    expect(r.push.undelivered).toBe(0);
    positive(r.push.deliveriesPerSecond);

    positive(r.postgresCost.tasks);
    positive(r.postgresCost.perTask.total.statements);
    positive(r.postgresCost.perTask.total.roundTrips);
    positive(r.postgresCost.writeTransactionsPerTask);
    positive(r.idlePostgresCpu.backends);
    expect(r.idlePostgresCpu.workerSlots).toBe(100);

    expect(r.streamMemory.streams).toBeGreaterThan(0);
    expect(r.streamMemory.errors).toBe(0);
    expect(r.memory.map((m) => m.role).sort()).toEqual(
      expect.arrayContaining(['gateway', 'gateway', 'pusher', 'worker', 'worker']),
    );
    for (const m of r.memory) positive(m.peakRssBytes);

    // Scaling: the full topology, then one gateway, then fewer workers; each one measured.
    expect(r.scaling.length).toBeGreaterThanOrEqual(3);
    for (const s of r.scaling) positive(s.tasksPerSecond);
    expect(new Set(r.scaling.map((s) => s.gateways))).toEqual(new Set([1, 2]));

    expect(r.targets.length).toBeGreaterThanOrEqual(9);
  });
});
