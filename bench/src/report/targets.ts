import type { BenchReport, TargetCheck } from './bench-report.ts';

const MB = 1024 * 1024;

/** The targets for a full run on a 2-core machine, each beside what this run measured. */
export function checkTargets(r: Omit<BenchReport, 'targets' | 'finishedAt'>): TargetCheck[] {
  const peak = Math.max(r.saturation.tasksPerSecond, ...r.scaling.map((s) => s.tasksPerSecond));
  const half = closest(r.openLoop, r.saturation.tasksPerSecond / 2);
  const worst = [...r.memory].sort((a, b) => b.peakRssBytes - a.peakRssBytes)[0];
  const checks: TargetCheck[] = [
    {
      target: 'end-to-end throughput (echo, saturation)',
      goal: '≥ 500 tasks/s',
      measured: `${peak} tasks/s`,
      pass: peak >= 500,
    },
    {
      target: 'end to end ÷ raw CAS+event rate',
      goal: '≥ 30%',
      measured: `${pct(r.ratios.toPostgresCasEvent)} (${r.ceilings.postgresCasEvent.perSecond}/s raw)`,
      pass: r.ratios.toPostgresCasEvent >= 0.3,
    },
    {
      target: 'Postgres writing transactions per task',
      goal: '≤ ~3',
      measured: `${r.postgresCost.writeTransactionsPerTask} (${r.postgresCost.transactionsPerTask} with reads)`,
      pass: r.postgresCost.writeTransactionsPerTask <= 3,
    },
    {
      target: 'dispatch latency p95 (at half of peak)',
      goal: '< 20 ms',
      measured: half
        ? `${half.dispatchMs.p95} ms at ${half.offeredPerSecond}/s offered${busy(half)}`
        : 'not run',
      pass: !!half && half.dispatchMs.p95 < 20,
    },
    {
      target: 'submit latency p99 at half of peak',
      goal: '< 25 ms',
      measured: half
        ? `${half.submit.latencyMs.p99} ms at ${half.offeredPerSecond}/s offered${busy(half)}${late(half)}`
        : 'not run',
      pass: !!half && half.submit.latencyMs.p99 < 25,
    },
    {
      target: `fan-out p99, ${r.fanout.streams} streams`,
      goal: '< 20 ms with 1,000 streams',
      measured: `${r.fanout.latencyMs.p99} ms`,
      pass: r.fanout.latencyMs.p99 < 20,
      ...(r.fanout.streams < 1000 ? { note: 'fewer streams than the target names' } : {}),
    },
    {
      target: `Postgres CPU, ${r.idlePostgresCpu.workerSlots} idle worker slots, no tasks`,
      goal: '< 5% of a core',
      measured: `${r.idlePostgresCpu.percentOfOneCore}%`,
      pass: r.idlePostgresCpu.percentOfOneCore < 5,
    },
    {
      target: 'gateway memory per idle open stream',
      goal: '< 20 KB',
      measured:
        `${(r.streamMemory.bytesPerStream / 1024).toFixed(1)} KB RSS (${r.streamMemory.streams} streams; ` +
        `${(r.streamMemory.rawRssBytesPerStream / 1024).toFixed(1)} with the young generation's growth)` +
        (r.streamMemory.heapBytesPerStream === null
          ? ''
          : `, ${(r.streamMemory.heapBytesPerStream / 1024).toFixed(1)} KB V8 heap`),
      // Judged on RSS, the stricter figure: it is what the machine has to provide. The young
      // generation's growth between the readings is a per-process cost and is taken out (see
      // StreamMemory.bytesPerStream); the report shows the figure with it too.
      pass: r.streamMemory.bytesPerStream < 20 * 1024,
    },
    {
      target: 'largest process resident size at peak',
      goal: '< 250 MB',
      measured: worst ? `${(worst.peakRssBytes / MB).toFixed(0)} MB (${worst.name})` : 'not run',
      pass: !!worst && worst.peakRssBytes < 250 * MB,
    },
  ];
  return checks;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
/** How busy the whole machine was during a phase: half the peak rate is not half the machine. */
const busy = (e: { machineBusy?: number; cpuWaitShare?: number }) =>
  (e.machineBusy === undefined ? '' : `, machine ${pct(e.machineBusy)} busy`) +
  (e.cpuWaitShare === undefined ? '' : `, a task waiting for a CPU ${pct(e.cpuWaitShare)} of the time`);
/** The load generator shares the cores: its own late sends are part of the submit latency. */
const late = (e: { sendLateMs?: { p99: number } }) =>
  e.sendLateMs ? `; the load generator sent p99 ${e.sendLateMs.p99} ms late` : '';

function closest<T extends { offeredPerSecond?: number }>(runs: T[], rate: number): T | undefined {
  return [...runs].sort(
    (a, b) => Math.abs((a.offeredPerSecond ?? 0) - rate) - Math.abs((b.offeredPerSecond ?? 0) - rate),
  )[0];
}
