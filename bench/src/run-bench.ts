import os from 'node:os';
import pg from 'pg';
import { createQueueKeys } from '@switchyard/queue';
import { rawBullmq } from './ceilings/raw-bullmq.ts';
import { rawPostgres } from './ceilings/raw-postgres.ts';
import { startCpuMeter } from './measure/cpu-meter.ts';
import { localRedisPid } from './platform/local-redis.ts';
import { measureEndToEnd, type EndToEnd } from './measure/end-to-end.ts';
import { measureFanout } from './measure/fanout.ts';
import { memorySampler } from './measure/memory-sampler.ts';
import { measurePostgresCost } from './measure/postgres-cost.ts';
import { measurePostgresCpu } from './measure/postgres-cpu.ts';
import { measurePush } from './measure/push.ts';
import { measureRequests } from './measure/requests.ts';
import { measureStreamMemory } from './measure/stream-memory.ts';
import type { Mode } from './modes.ts';
import { createBenchEnvironment } from './platform/bench-environment.ts';
import { startCostTopology, startTopology, type Topology } from './platform/topology.ts';
import type { BenchReport, ScalingPoint } from './report/bench-report.ts';
import { checkTargets } from './report/targets.ts';
import { round, throughput } from './stats.ts';

const say = (what: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${what}`);

const point = (e: EndToEnd): ScalingPoint => ({
  workers: e.workers,
  gateways: e.gateways,
  tasksPerSecond: e.tasksPerSecond,
  submitPerSecond: e.submit.perSecond,
  ...(e.cpuMsPerTask ? { cpuMsPerTask: e.cpuMsPerTask } : {}),
});

/** Every phase in order on one fresh database; the caller has resolved DATABASE_URL and REDIS_URL. */
export async function runBench(mode: Mode): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const loadStart = os.loadavg()[0]!;
  const env = await createBenchEnvironment(mode.fanoutAgent);
  const serverUrl = new URL(env.db.url);
  serverUrl.pathname = '/postgres';
  // Statistics are read through another database so the reads do not count in the measured one.
  const admin = new pg.Pool({ connectionString: serverUrl.toString(), max: 2 });
  const memory = memorySampler();
  let topology: Topology | undefined;
  try {
    const postgres = (await admin.query<{ v: string }>('SHOW server_version')).rows[0]!.v;

    say('ceilings: raw BullMQ, raw Postgres CAS, CAS + event');
    const bullmq = throughput(
      await rawBullmq(env.redis.url, env.redis.prefix, mode.ceilingOps, mode.ceilingClients),
    );
    const raw = await rawPostgres(env.db.url, mode.ceilingOps, mode.ceilingClients, () =>
      startCpuMeter(admin, env.databaseName, []),
    );
    const ceilings = {
      bullmq,
      postgresCas: throughput(raw.cas),
      postgresCasEvent: throughput(raw.casEvent),
      postgresCpuMsPerOp: raw.postgresCpuMsPerOp,
    };

    say(`starting processes: 2 gateways, ${mode.workers} workers, pusher, and the proxied cost pair`);
    const [cost, main] = await Promise.all([
      startCostTopology(env),
      startTopology(env, mode.workers, mode.slotsPerWorker),
    ]);
    topology = main;
    for (const p of main.all()) memory.watch(p);
    say('Postgres cost per task (counting proxies)');
    const postgresCost = await measurePostgresCost(
      { gateway: cost.gateway, wire: cost.wire, admin, pool: env.db.pool, database: env.databaseName },
      mode.costBatchMs,
      mode.costBaselineMs,
    );
    await cost.stop();

    say(`idle Postgres CPU with ${mode.workers * mode.slotsPerWorker} idle worker slots`);
    // The local redis-server's CPU is metered beside the platform's (when Redis runs here).
    const redisPid = await localRedisPid(env.redis.url);
    const services = redisPid ? [{ role: 'redis', pid: redisPid }] : [];
    const idle = await measurePostgresCpu(admin, env.databaseName, mode.idleWindowMs, main.all(), services);
    const idlePostgresCpu = {
      ...idle,
      workerProcesses: mode.workers,
      workerSlots: mode.workers * mode.slotsPerWorker,
    };

    const urls = main.gateways.map((g) => g.url);
    const cpu = () => ({
      admin,
      database: env.databaseName,
      processes: main.all(),
      services,
      idlePerSecond: idle.idleCpuPerSecond,
    });
    say('warm-up (not measured)');
    await measureEndToEnd(env.db.pool, {
      gateways: urls,
      workers: main.workers.length,
      clients: mode.saturationClients,
      durationMs: mode.warmupMs,
    });
    // Saturation on every topology first (4 → 2 → 1 workers; 2 gateways, then 1): the peak is the
    // best of them, and every later phase runs on the topology that reached it, as an operator
    // sizing this machine would deploy it.
    const runs: Array<EndToEnd & { ids: string[]; urls: string[] }> = [];
    const saturate = async (gatewayUrls: string[]) => {
      const run = await measureEndToEnd(env.db.pool, {
        gateways: gatewayUrls,
        workers: main.workers.length,
        clients: mode.saturationClients,
        durationMs: mode.saturationMs,
        cpu: cpu(),
      });
      runs.push({ ...run, urls: gatewayUrls });
    };
    say(`saturation, closed loop: ${main.workers.length} workers, 2 gateways`);
    await saturate(urls);
    say(`saturation, closed loop: ${main.workers.length} workers, 1 gateway`);
    await saturate([urls[0]!]);
    while (main.workers.length > 1) {
      const keep = main.workers.length > 2 ? 2 : 1;
      memory.sample();
      while (main.workers.length > keep) await main.dropWorker();
      say(`saturation, closed loop: ${main.workers.length} worker(s), 1 gateway`);
      await saturate([urls[0]!]);
    }
    // The latency phases run on the smallest topology within 10% of the best rate: on a small
    // machine the rates of neighbouring topologies are within noise of each other, and the extra
    // processes (one of them restarted cold) cost the tails far more than they add.
    const top = Math.max(...runs.map((r) => r.tasksPerSecond));
    const size = (r: (typeof runs)[number]) => r.workers + r.gateways;
    const best = runs
      .filter((r) => r.tasksPerSecond >= top * 0.9)
      .reduce((a, b) =>
        size(b) < size(a) || (size(b) === size(a) && b.tasksPerSecond > a.tasksPerSecond) ? b : a,
      );
    const scaling = runs.map(point);
    if (main.workers.length < best.workers) {
      while (main.workers.length < best.workers) memory.watch(await main.addWorker(mode.slotsPerWorker));
      say('warm-up of the added workers (not measured)');
      await measureEndToEnd(env.db.pool, {
        gateways: best.urls,
        workers: main.workers.length,
        clients: mode.saturationClients,
        durationMs: mode.warmupMs,
      });
    }
    const { ids: taskIds, urls: bestUrls, ...saturation } = best;

    const openLoop: EndToEnd[] = [];
    for (const f of mode.openLoopFractions) {
      const rate = Math.max(1, round(saturation.tasksPerSecond * f, 1));
      say(`open loop at ${rate} tasks/s (${best.workers}w/${best.gateways}gw)`);
      const { ids: _ids, ...o } = await measureEndToEnd(env.db.pool, {
        gateways: bestUrls,
        workers: main.workers.length,
        rate,
        durationMs: mode.openLoopMs,
        cpu: cpu(),
      });
      openLoop.push(o);
    }

    say('blocking SendMessage, GetTask, ListTasks');
    const req = (op: 'blocking' | 'get' | 'list') =>
      measureRequests(op, bestUrls, mode.requestClients, mode.requestMs, taskIds);
    const requests = {
      blockingSend: await req('blocking'),
      getTask: await req('get'),
      listTasks: await req('list'),
    };

    say('gateway memory per idle stream');
    const streamMemory = await measureStreamMemory(
      main.gateways[0]!,
      mode.idleStreamTasks,
      mode.idleStreamsPerTask,
    );
    say('SSE fan-out');
    const hints = { subscriber: env.redis.connect(), keys: createQueueKeys(env.redis.prefix) };
    const fanout = await measureFanout(
      env.db.pool,
      hints,
      bestUrls[0]!,
      mode.fanoutTasks,
      mode.streamsPerTask,
    );
    say('push deliveries');
    const push = await measurePush(env.db.pool, bestUrls, main.workers.length, mode.pushClients, mode.pushMs);

    const peak = top;
    const partial = {
      mode: mode.name,
      startedAt,
      machine: {
        cpus: os.cpus().length,
        node: process.version,
        postgres,
        loadAverage: { start: round(loadStart), end: round(os.loadavg()[0]!) },
      },
      ceilings,
      ratios: {
        toBullmq: round(peak / bullmq.perSecond, 3),
        toPostgresCas: round(peak / ceilings.postgresCas.perSecond, 3),
        toPostgresCasEvent: round(peak / ceilings.postgresCasEvent.perSecond, 3),
      },
      postgresCost,
      idlePostgresCpu,
      saturation,
      openLoop,
      requests,
      fanout,
      streamMemory,
      push,
      scaling,
      memory: memory.stop(),
    };
    return { ...partial, targets: checkTargets(partial), finishedAt: new Date().toISOString() };
  } finally {
    memory.stop();
    await topology?.stop();
    await admin.end();
    await env.close();
  }
}
