import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { TENANT } from '../platform/bench-environment.ts';
import { latencies, round, type LatencySummary } from '../stats.ts';
import { measureEndToEnd } from './end-to-end.ts';

export interface PushFigures {
  tasks: number;
  deliveries: number;
  /** Deliveries acknowledged per second, from the first outbox row written to the last delivered. */
  deliveriesPerSecond: number;
  /** Outbox row written with its event → the receiver's 2xx recorded. */
  latencyMs: LatencySummary;
  received: number;
  undelivered: number;
}

/** A local webhook receiver answering 204 at once. */
async function startReceiver(): Promise<{ url: string; count: () => number; close: () => void }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => count,
    close: () => server.close(),
  };
}

/** Echo tasks each with a webhook; one pusher process delivers every event to the local receiver. */
export async function measurePush(
  pool: pg.Pool,
  gateways: string[],
  workers: number,
  clients: number,
  durationMs: number,
): Promise<PushFigures> {
  const receiver = await startReceiver();
  try {
    const e2e = await measureEndToEnd(pool, { gateways, workers, clients, durationMs, push: receiver.url });
    const query = () =>
      pool.query<{ created: number; delivered: number | null; status: string }>(
        `SELECT extract(epoch FROM created_at)::float8 * 1000 AS created,
                extract(epoch FROM delivered_at)::float8 * 1000 AS delivered, status
           FROM push_deliveries WHERE tenant_id = $1 AND task_id = ANY($2::uuid[])`,
        [TENANT, e2e.ids],
      );
    const deadline = Date.now() + 120_000;
    let rows = (await query()).rows;
    while (rows.some((r) => r.status === 'pending') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      rows = (await query()).rows;
    }
    const delivered = rows.filter((r) => r.delivered !== null);
    const first = Math.min(...rows.map((r) => r.created));
    const last = Math.max(...delivered.map((r) => r.delivered!));
    return {
      tasks: e2e.ids.length,
      deliveries: delivered.length,
      deliveriesPerSecond: round(delivered.length / Math.max(0.001, (last - first) / 1000), 1),
      latencyMs: latencies(delivered.map((r) => r.delivered! - r.created)),
      received: receiver.count(),
      undelivered: rows.length - delivered.length,
    };
  } finally {
    receiver.close();
  }
}
