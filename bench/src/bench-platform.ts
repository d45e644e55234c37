import { bundledAgents } from '@switchyard/agents';
import {
  createTaskService,
  createWorkerRuntime,
  type EngineConfig,
  type WorkerRuntime,
} from '@switchyard/engine';
import { createQueueKeys } from '@switchyard/queue';
import { createSecretBox } from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import { createTestDatabase, createTestRedis } from '@switchyard/testing';

export const TENANTS = ['bench-a', 'bench-b'] as const;

/** A fresh database and Redis prefix with the bundled agents registered for two tenants. */
export async function startBenchPlatform(engine: Partial<EngineConfig> = {}) {
  const db = await createTestDatabase();
  const redis = createTestRedis();
  const keys = createQueueKeys(redis.prefix);
  const secrets = createSecretBox('bench-secret-key-0123456789');
  const log = silentLogger();
  const bundle = createTaskService({
    pool: db.pool,
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    secrets,
    log,
    engine,
    urlPolicy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
  });
  for (const tenantId of TENANTS) {
    await bundle.admin.ensureTenant({ id: tenantId, name: tenantId });
    for (const agent of bundledAgents) {
      await bundle.admin.upsertAgent({
        tenantId,
        id: agent.executor,
        card: agent.card as unknown as Record<string, unknown>,
        executor: agent.executor,
        settings: {},
      });
    }
    await bundle.admin.upsertAgent({
      tenantId,
      id: 'quick',
      card: bundledAgents[0]!.card as unknown as Record<string, unknown>,
      executor: 'slow',
      settings: { delayMs: 1 },
    });
  }
  const workers: WorkerRuntime[] = [];
  return {
    ...bundle,
    dbHandle: db,
    redisHandle: redis,
    keys,
    secrets,
    startWorker(concurrency: number): WorkerRuntime {
      const w = createWorkerRuntime({
        pool: db.pool,
        redis: redis.connect(),
        subscriber: redis.connect(),
        keys,
        secrets,
        log,
        concurrency,
        engine,
        shutdownGraceMs: 1000,
      });
      w.start();
      workers.push(w);
      return w;
    },
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      await bundle.close();
      await redis.cleanup();
      await db.drop();
    },
  };
}

export type BenchPlatform = Awaited<ReturnType<typeof startBenchPlatform>>;
