import v8 from 'node:v8';
import { Redis } from 'ioredis';
import { COMMANDS_CONNECTION_OPTIONS, createQueueKeys, type QueueKeys } from '@switchyard/queue';
import { createPool, createSecretBox, type SecretBox } from '@switchyard/store';
import { createLogger, createMetrics, startTracing, type Logger, type Metrics } from '@switchyard/telemetry';
import type pg from 'pg';
import type { CommonConfig } from './env-config.ts';

/** What every Switchyard process opens at start, from its validated common config. */
export interface ProcessResources {
  log: Logger;
  metrics: Metrics;
  pool: pg.Pool;
  /** Commands (queues, publishes). BullMQ needs maxRetriesPerRequest: null on it. */
  redis: Redis;
  /**
   * The platform's own short commands (hint publishes, backlog counters, rate limits), auto-
   * pipelined: everything issued in one event-loop turn leaves in one write. On this benchmark's
   * machine a socket write was a third of a process's CPU, and this cut the gateway's Redis writes
   * per task from six to two. Never handed to BullMQ, whose maintainers advise against
   * auto-pipelining its multi-step job protocol. Its commands never wait out a Redis outage
   * (COMMANDS_CONNECTION_OPTIONS). (The pusher and console leave it idle.)
   */
  commands: Redis;
  /** A dedicated pub/sub connection. */
  subscriber: Redis;
  keys: QueueKeys;
  secrets: SecretBox;
  /** Closes the connections and flushes traces; call last in the drain. */
  close(): Promise<void>;
}

/**
 * The composition every main.ts starts with: logger (with trace ids), tracing (configured only by
 * the OTEL_* variables in `env`), metrics, a small Postgres pool and three Redis connections
 * (BullMQ's, the auto-pipelined commands, pub/sub), each with error listeners so a dropped
 * connection is logged and retried, never a crash.
 */
export async function openProcessResources(
  service: string,
  config: CommonConfig,
  env: NodeJS.ProcessEnv,
): Promise<ProcessResources> {
  tuneHeap(config.HEAP_GROWING_PERCENT);
  const log = createLogger({ name: service, level: config.LOG_LEVEL, withTraceIds: true });
  const tracing = await startTracing({ serviceName: `switchyard-${service}`, env, log });
  const metrics = createMetrics({
    service,
    onCollectError: (err, collector) => log.warn({ err, collector }, 'metrics source failed'),
  });
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    maxConnections: config.PG_POOL_MAX,
    preparedStatements: config.PG_PREPARED_STATEMENTS,
    idleTimeoutMs: config.PG_IDLE_TIMEOUT_MS,
    applicationName: `switchyard-${service}`,
  });
  // An idle client's socket dying (a Postgres restart) must not crash the process.
  pool.on('error', (err) => log.warn({ err }, 'idle Postgres client failed'));
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
  const commands = new Redis(config.REDIS_URL, COMMANDS_CONNECTION_OPTIONS);
  const subscriber = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
  redis.on('error', (err) => log.warn({ err }, 'Redis error; reconnecting'));
  commands.on('error', (err) => log.warn({ err }, 'Redis (pipelined commands) error; reconnecting'));
  subscriber.on('error', (err) =>
    log.warn({ err }, 'Redis subscriber error; reconnecting (readers poll meanwhile)'),
  );
  metrics.resources.observePgPool(pool);
  metrics.resources.observeRedis(() => redis.status === 'ready');
  return {
    log,
    metrics,
    pool,
    redis,
    commands,
    subscriber,
    keys: createQueueKeys(config.SWITCHYARD_REDIS_PREFIX),
    secrets: createSecretBox(config.SWITCHYARD_SECRET_KEY),
    async close() {
      redis.disconnect();
      commands.disconnect();
      subscriber.disconnect();
      await pool.end();
      await tracing.shutdown();
    },
  };
}

/**
 * Under a steady request load V8 lets the old generation grow to about four times the live heap
 * before a full GC: a gateway with 50 MB live sat at 300 MB resident. Capping the growth at
 * `percent` (read by V8 at every GC, so setting it at start is enough) kept it under 200 MB with
 * the same throughput in the bench; the full GCs are more frequent but each is short, since the
 * live heap is small. The young generation is sized by --max-semi-space-size in NODE_OPTIONS
 * (deploy/Dockerfile, script/server), which only a flag at start can set.
 */
function tuneHeap(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
