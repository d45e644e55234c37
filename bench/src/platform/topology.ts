import type { BenchEnvironment } from './bench-environment.ts';
import {
  PLATFORM_NODE_OPTIONS,
  startPlatformProcess,
  stopPlatformProcess,
  type Connection,
  type PlatformProcess,
} from './cluster.ts';
import { INSPECT_FLAG } from './inspector-gc.ts';
import { startWireCounter } from './pg-wire-counter.ts';

/** The platform under load: two gateways, `workers` worker processes and one pusher. */
export interface Topology {
  gateways: PlatformProcess[];
  workers: PlatformProcess[];
  pusher: PlatformProcess;
  all(): PlatformProcess[];
  /** Stops the last-started worker (scaling goes 4 → 2 → 1). */
  dropWorker(): Promise<PlatformProcess>;
  /** Starts one more worker (back up to the best topology after scaling). */
  addWorker(slotsPerWorker: number): Promise<PlatformProcess>;
  stop(): Promise<void>;
}

export const connectionOf = (env: BenchEnvironment): Connection => ({
  databaseUrl: env.db.url,
  redisUrl: env.redis.url,
  redisPrefix: env.redis.prefix,
});

export async function startTopology(
  env: BenchEnvironment,
  workers: number,
  slotsPerWorker: number,
): Promise<Topology> {
  const conn = connectionOf(env);
  const slots = { WORKER_CONCURRENCY: String(slotsPerWorker) };
  const [pusher, ...rest] = await Promise.all([
    startPlatformProcess('pusher', 'pusher', conn),
    // gateway-1 serves the stream-memory phase, which collects its garbage through the inspector.
    startPlatformProcess('gateway', 'gateway-1', conn, {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${PLATFORM_NODE_OPTIONS} ${INSPECT_FLAG}`.trim(),
    }),
    startPlatformProcess('gateway', 'gateway-2', conn),
    ...Array.from({ length: workers }, (_, i) =>
      startPlatformProcess('worker', `worker-${i + 1}`, conn, slots),
    ),
  ]);
  const gateways = rest.filter((p) => p.role === 'gateway');
  const ws = rest.filter((p) => p.role === 'worker');
  const all = () => [...gateways, ...ws, pusher!];
  let started = workers;
  return {
    gateways,
    workers: ws,
    pusher: pusher!,
    all,
    async dropWorker() {
      const w = ws.pop()!;
      await stopPlatformProcess(w);
      return w;
    },
    async addWorker(slotsPerWorker) {
      const w = await startPlatformProcess('worker', `worker-${++started}`, conn, {
        WORKER_CONCURRENCY: String(slotsPerWorker),
      });
      ws.push(w);
      return w;
    },
    async stop() {
      await Promise.all(all().map(stopPlatformProcess));
    },
  };
}

/**
 * One gateway and one worker whose Postgres connections go through counting proxies, on a Redis
 * prefix of their own so that no other worker runs their tasks: the Postgres-cost phase.
 */
export async function startCostTopology(env: BenchEnvironment) {
  const target = new URL(env.db.url);
  const gatewayWire = await startWireCounter(target);
  const workerWire = await startWireCounter(target);
  const conn = { ...connectionOf(env), redisPrefix: `${env.redis.prefix}-cost` };
  const [gateway, worker] = await Promise.all([
    startPlatformProcess('gateway', 'cost-gateway', { ...conn, databaseUrl: gatewayWire.url(env.db.url) }),
    startPlatformProcess(
      'worker',
      'cost-worker',
      { ...conn, databaseUrl: workerWire.url(env.db.url) },
      { WORKER_CONCURRENCY: '16' },
    ),
  ]);
  return {
    gateway: gateway!,
    worker: worker!,
    wire: { gateway: gatewayWire, worker: workerWire },
    async stop() {
      await Promise.all([stopPlatformProcess(gateway!), stopPlatformProcess(worker!)]);
      gatewayWire.close();
      workerWire.close();
    },
  };
}
