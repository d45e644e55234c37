import type { LatencySummary, Throughput } from '../stats.ts';
import type { BenchReport } from './bench-report.ts';

/** One line of the printed table and of the chart: a path, its rate and its latency percentiles. */
export interface Row {
  path: string;
  rate: number;
  unit: string;
  p50: number;
  p95: number;
  p99: number;
}

const row = (path: string, rate: number, unit: string, l: LatencySummary): Row => ({
  path,
  rate,
  unit,
  p50: l.p50,
  p95: l.p95,
  p99: l.p99,
});
const tp = (path: string, t: Throughput, unit: string) => row(path, t.perSecond, unit, t.latencyMs);

export function rows(r: BenchReport): Row[] {
  const s = r.saturation;
  return [
    tp('raw BullMQ add → processed (ceiling)', r.ceilings.bullmq, 'jobs/s'),
    tp('raw Postgres CAS on tasks (ceiling)', r.ceilings.postgresCas, 'updates/s'),
    tp('raw Postgres CAS + event insert (ceiling)', r.ceilings.postgresCasEvent, 'tx/s'),
    row(
      `end to end, saturation (${s.workers}w/${s.gateways}gw, the latency phases' topology), submit → COMPLETED`,
      s.tasksPerSecond,
      'tasks/s',
      s.completionMs,
    ),
    tp('  its non-blocking submits', s.submit, 'req/s'),
    row('  its dispatch (create → claimed)', s.tasksPerSecond, 'tasks/s', s.dispatchMs),
    ...r.openLoop.flatMap((o) => [
      row(
        `open loop ${o.offeredPerSecond}/s offered, submit → COMPLETED`,
        o.tasksPerSecond,
        'tasks/s',
        o.completionMs,
      ),
      tp(`  submit at ${o.offeredPerSecond}/s`, o.submit, 'req/s'),
      ...(o.sendLateMs
        ? [row(`    of which the load generator sent late`, o.submit.perSecond, 'req/s', o.sendLateMs)]
        : []),
      row(`  dispatch at ${o.offeredPerSecond}/s`, o.tasksPerSecond, 'tasks/s', o.dispatchMs),
    ]),
    tp(`blocking SendMessage (${r.requests.blockingSend.clients} clients)`, r.requests.blockingSend, 'req/s'),
    tp(`GetTask (${r.requests.getTask.clients} clients)`, r.requests.getTask, 'req/s'),
    tp(`ListTasks, 50 a page (${r.requests.listTasks.clients} clients)`, r.requests.listTasks, 'req/s'),
    row(
      `SSE fan-out, commit → client (${r.fanout.streams} streams)`,
      r.fanout.deliveriesPerSecond,
      'events/s',
      r.fanout.latencyMs,
    ),
    row(
      '  the same, from the write (transaction start)',
      r.fanout.deliveriesPerSecond,
      'events/s',
      r.fanout.fromWriteMs,
    ),
    row('push, outbox row → webhook 2xx', r.push.deliveriesPerSecond, 'deliveries/s', r.push.latencyMs),
    ...r.scaling.map((p) =>
      row(`scaling: ${p.workers} worker(s), ${p.gateways} gateway(s)`, p.tasksPerSecond, 'tasks/s', {
        n: 0,
        p50: Number.NaN,
        p95: Number.NaN,
        p99: Number.NaN,
        max: Number.NaN,
      }),
    ),
  ];
}
