import type { BenchReport } from './bench-report.ts';
import { rows } from './rows.ts';

const MB = 1024 * 1024;
const fmt = (v: number) => (Number.isNaN(v) ? '' : v.toLocaleString('en-US', { maximumFractionDigits: 1 }));

/** The human-readable summary on stdout: paths, costs, memory and the targets with pass/miss. */
export function printReport(r: BenchReport): void {
  console.log(
    `\nSwitchyard benchmark (${r.mode}), ${r.machine.cpus} CPUs, load average ${r.machine.loadAverage.start} → ${r.machine.loadAverage.end}\n`,
  );
  console.table(
    rows(r).map((x) => ({
      path: x.path,
      rate: `${fmt(x.rate)} ${x.unit}`,
      'p50 ms': fmt(x.p50),
      'p95 ms': fmt(x.p95),
      'p99 ms': fmt(x.p99),
    })),
  );
  const c = r.postgresCost;
  console.log(
    `Postgres per task (${c.tasks} tasks, counted on the wire): ${c.transactionsPerTask} transactions ` +
      `(${c.writeTransactionsPerTask} writing), ` +
      `${c.perTask.total.statements} statements, ${c.perTask.total.roundTrips} round trips ` +
      `(gateway ${c.perTask.gateway.statements} / worker ${c.perTask.worker.statements} statements); ` +
      `pg_stat_database xact_commit: ${c.xactCommitPerTask} per task`,
  );
  const perTask = r.saturation.cpuMsPerTask;
  if (perTask) {
    // 'postgres for <role>' split the postgres figure; the total counts it once.
    const total = Object.entries(perTask)
      .filter(([k]) => !k.startsWith('postgres for'))
      .reduce((a, [, v]) => a + v, 0);
    console.log(
      `CPU per task at saturation, the idle platform's own use removed: ${Object.entries(perTask)
        .map(([k, v]) => `${k} ${v} ms`)
        .join(', ')} ` +
        `(total ${total.toFixed(1)} ms; a bare CAS+event costs Postgres ${r.ceilings.postgresCpuMsPerOp.casEvent} ms;` +
        ` ${r.machine.cpus} cores: dedicated, they would allow ~${Math.round((r.machine.cpus * 1000) / total)} tasks/s if CPU were the only limit)`,
    );
  }
  const levels = [r.saturation, ...r.openLoop].filter((e) => e.cpuMsPerTask && e.machineBusy !== undefined);
  if (levels.length)
    console.log(
      `CPU per task by load (gateway + worker + Postgres; Redis beside it), the machine's busy share and CPU pressure: ${levels
        .map(
          (e) =>
            `${e.offeredPerSecond === undefined ? 'saturation' : `${fmt(e.offeredPerSecond)}/s`} ` +
            `${platformMs(e.cpuMsPerTask!).toFixed(2)} ms` +
            (e.cpuMsPerTask!.redis === undefined ? '' : ` (Redis ${e.cpuMsPerTask!.redis.toFixed(2)} ms)`) +
            `, ${pct(e.machineBusy!)} busy` +
            (e.cpuWaitShare === undefined
              ? ''
              : `, a task waiting for a CPU ${pct(e.cpuWaitShare)} of the time`),
        )
        .join('; ')}`,
    );
  console.log(
    `ratios of end to end to the ceilings: BullMQ ${pct(r.ratios.toBullmq)}, CAS ${pct(r.ratios.toPostgresCas)}, CAS+event ${pct(r.ratios.toPostgresCasEvent)}`,
  );
  console.log(
    `idle: ${r.idlePostgresCpu.workerSlots} worker slots in ${r.idlePostgresCpu.workerProcesses} processes → Postgres ${r.idlePostgresCpu.percentOfOneCore}% of a core, ${r.idlePostgresCpu.transactionsPerSecond} tx/s; ` +
      `each idle process uses ${['gateway', 'worker', 'pusher']
        .map((k) => `${k} ${((r.idlePostgresCpu.idleCpuPerSecond[k] ?? 0) * 100).toFixed(1)}%`)
        .join(', ')} of a core`,
  );
  console.log(
    `memory: ${r.memory.map((m) => `${m.name} ${(m.peakRssBytes / MB).toFixed(0)} MB`).join(', ')}; ` +
      `${(r.streamMemory.bytesPerStream / 1024).toFixed(1)} KB of gateway RSS per idle stream (${r.streamMemory.streams} streams; ` +
      `V8 heap in use ${kb(r.streamMemory.heapBytesPerStream)}, outside the heap ${kb(r.streamMemory.externalBytesPerStream)} per stream; ` +
      `${kb(r.streamMemory.rawRssBytesPerStream)} before taking out the young generation's growth, ${youngGrowth(r.streamMemory.youngGeneration)})\n`,
  );
  console.table(
    r.targets.map((t) => ({
      target: t.target,
      goal: t.goal,
      measured: t.measured,
      result: t.pass ? 'pass' : 'MISS',
    })),
  );
}

const kb = (b: number | null) => (b === null ? 'n/a' : `${(b / 1024).toFixed(1)} KB`);
const youngGrowth = (y: { half: number; all: number } | null) =>
  y === null
    ? 'young generation n/a'
    : `young generation ${(y.half / MB).toFixed(1)} → ${(y.all / MB).toFixed(1)} MB`;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const platformMs = (perTask: Record<string, number>) =>
  (perTask.gateway ?? 0) + (perTask.worker ?? 0) + (perTask.postgres ?? 0);
