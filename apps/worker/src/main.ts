// Worker entry point: build pools and clients from validated config, run, drain on SIGTERM.
import { Redis } from 'ioredis';
import { createWorkerRuntime } from '@switchyard/engine';
import { createQueueKeys } from '@switchyard/queue';
import { handleSignals, startOpsServer } from '@switchyard/runtime';
import { createPool, createSecretBox } from '@switchyard/store';
import { createLogger, createMetrics, startTracing } from '@switchyard/telemetry';
import { loadWorkerConfig } from './config.ts';

const config = loadWorkerConfig(process.env);
const log = createLogger({ name: 'worker', level: config.LOG_LEVEL, withTraceIds: true });
const tracing = await startTracing({ serviceName: 'switchyard-worker', env: process.env, log });
const metrics = createMetrics({
  service: 'worker',
  onCollectError: (err, collector) => log.warn({ err, collector }, 'metrics source failed'),
});
const pool = createPool({
  connectionString: config.DATABASE_URL,
  maxConnections: config.PG_POOL_MAX,
  applicationName: 'switchyard-worker',
});
// An idle client's socket dying (Postgres restart) must not crash the process: the next query reconnects.
pool.on('error', (err) => log.warn({ err }, 'idle Postgres client failed'));
const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
const subscriber = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
redis.on('error', (err) => log.warn({ err }, 'Redis error; retrying'));
subscriber.on('error', (err) => log.warn({ err }, 'Redis subscriber error; streams fall back to polling'));
metrics.resources.observePgPool(pool);
metrics.resources.observeRedis(() => redis.status === 'ready');
const worker = createWorkerRuntime({
  pool,
  redis,
  subscriber,
  keys: createQueueKeys(config.SWITCHYARD_REDIS_PREFIX),
  secrets: createSecretBox(config.SWITCHYARD_SECRET_KEY),
  log,
  metrics,
  concurrency: config.WORKER_CONCURRENCY,
  shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  ...(config.WORKER_ID ? { workerId: config.WORKER_ID } : {}),
  retention: {
    everyMs: config.RETENTION_INTERVAL_MS,
    terminalTaskTtlMs: config.TERMINAL_TASK_TTL_MS,
    eventTtlMs: config.EVENT_TTL_MS,
    idempotencyTtlMs: config.IDEMPOTENCY_TTL_MS,
    deliveredPushTtlMs: config.DELIVERED_PUSH_TTL_MS,
  },
  engine: {
    leaseMs: config.LEASE_MS,
    maxAttempts: config.MAX_ATTEMPTS,
    retryBaseMs: config.RETRY_BASE_MS,
    retryMaxMs: config.RETRY_MAX_MS,
    reaperIntervalMs: config.REAPER_INTERVAL_MS,
    dispatchGraceMs: config.DISPATCH_GRACE_MS,
  },
});
worker.start();
const ops = await startOpsServer(config.WORKER_OPS_PORT, {
  health: () => worker.state === 'running' || worker.state === 'draining',
  ready: () => worker.ready(),
  metrics: () => metrics.text(),
});
handleSignals(
  {
    async stop() {
      await worker.stop();
      ops.close();
      redis.disconnect();
      subscriber.disconnect();
      await pool.end();
      await tracing.shutdown();
    },
  },
  log,
);
