import type pg from 'pg';
import type { FanoutResult } from '../load/jobs.ts';
import { runLoad } from '../platform/load-generator.ts';
import { API_KEY, TENANT } from '../platform/bench-environment.ts';
import { latencies, round, type LatencySummary } from '../stats.ts';

export interface FanoutFigures {
  streams: number;
  tasks: number;
  /** Events read by all clients together (each event counts once per stream). */
  deliveries: number;
  deliveriesPerSecond: number;
  /** Event written (its transaction's timestamp) → read by the SSE client. */
  latencyMs: LatencySummary;
  errors: number;
}

/** SSE fan-out: many streams on tasks that emit progress, latency from the store's event timestamps. */
export async function measureFanout(
  pool: pg.Pool,
  gateway: string,
  tasks: number,
  streamsPerTask: number,
): Promise<FanoutFigures> {
  const r = await runLoad<FanoutResult>({
    kind: 'fanout',
    gateways: [gateway],
    key: API_KEY,
    tenant: TENANT,
    agent: 'fanout',
    tasks,
    streamsPerTask,
  });
  const { rows } = await pool.query<{ task_id: string; seq: number; at: number }>(
    `SELECT task_id, seq, extract(epoch FROM created_at)::float8 * 1000 AS at
       FROM task_events WHERE tenant_id = $1 AND task_id = ANY($2::uuid[])`,
    [TENANT, r.taskIds],
  );
  const written = new Map(rows.map((e) => [`${e.task_id}/${e.seq}`, e.at]));
  const lat = r.received.flatMap(([i, seq, at]) => {
    const w = written.get(`${r.taskIds[i]}/${seq}`);
    return w === undefined ? [] : [at - w];
  });
  const span = r.received.length
    ? (Math.max(...r.received.map((x) => x[2])) - Math.min(...r.received.map((x) => x[2]))) / 1000
    : 0;
  return {
    streams: r.streams,
    tasks,
    deliveries: r.received.length,
    deliveriesPerSecond: round(span > 0 ? r.received.length / span : 0, 1),
    latencyMs: latencies(lat),
    errors: r.errors.count,
  };
}
