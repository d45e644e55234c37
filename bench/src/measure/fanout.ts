import type { Redis } from 'ioredis';
import type pg from 'pg';
import { decodeHint } from '@switchyard/events';
import type { QueueKeys } from '@switchyard/queue';
import type { FanoutResult } from '../load/jobs.ts';
import { epochMs } from '../load/http.ts';
import { runLoad } from '../platform/load-generator.ts';
import { API_KEY, TENANT } from '../platform/bench-environment.ts';
import { latencies, round, type LatencySummary } from '../stats.ts';

export interface FanoutFigures {
  streams: number;
  tasks: number;
  /** Events read by all clients together (each event counts once per stream). */
  deliveries: number;
  deliveriesPerSecond: number;
  /**
   * Event committed → read by the SSE client: the "fan-out latency from commit". The
   * commit time is when the event's hint, which the writer publishes as soon as its commit
   * returns, reached a subscriber of this process's own.
   */
  latencyMs: LatencySummary;
  /**
   * Event written → read: from its transaction's timestamp (when the transaction started), so
   * it also counts the writer's statement and the commit's WAL flush.
   */
  fromWriteMs: LatencySummary;
  errors: number;
}

/** SSE fan-out: many streams on tasks that emit progress, latency from the store's event timestamps. */
export async function measureFanout(
  pool: pg.Pool,
  hints: { subscriber: Redis; keys: QueueKeys },
  gateway: string,
  tasks: number,
  streamsPerTask: number,
): Promise<FanoutFigures> {
  const committed = await recordCommits(hints.subscriber, hints.keys);
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
  await hints.subscriber.punsubscribe();
  const written = new Map(rows.map((e) => [`${e.task_id}/${e.seq}`, e.at]));
  const since = (times: Map<string, number>) =>
    r.received.flatMap(([i, seq, at]) => {
      const t = times.get(`${r.taskIds[i]}/${seq}`);
      return t === undefined ? [] : [at - t];
    });
  const span = r.received.length
    ? (Math.max(...r.received.map((x) => x[2])) - Math.min(...r.received.map((x) => x[2]))) / 1000
    : 0;
  return {
    streams: r.streams,
    tasks,
    deliveries: r.received.length,
    deliveriesPerSecond: round(span > 0 ? r.received.length / span : 0, 1),
    latencyMs: latencies(since(committed)),
    fromWriteMs: latencies(since(written)),
    errors: r.errors.count,
  };
}

/** When each event's hint arrived: `${taskId}/${seq}` → epoch ms (a hint may also carry seq - 1). */
async function recordCommits(subscriber: Redis, keys: QueueKeys): Promise<Map<string, number>> {
  const at = new Map<string, number>();
  subscriber.on('pmessage', (_pattern, _channel, raw: string) => {
    const now = epochMs();
    const hint = decodeHint(raw);
    if (!hint) return;
    if (hint.before && !at.has(`${hint.taskId}/${hint.before.seq}`))
      at.set(`${hint.taskId}/${hint.before.seq}`, now);
    if (!at.has(`${hint.taskId}/${hint.seq}`)) at.set(`${hint.taskId}/${hint.seq}`, now);
  });
  await subscriber.psubscribe(keys.taskChannel(TENANT, '*'));
  return at;
}
