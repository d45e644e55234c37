import v8 from 'node:v8';
import { Redis, type RedisOptions } from 'ioredis';
import {
  COMMANDS_CONNECTION_OPTIONS,
  createQueueKeys,
  guardCommands,
  watchEvictionPolicy,
  type QueueKeys,
} from '@switchyard/queue';
import { createPool, createSecretBox, type SecretBox } from '@switchyard/store';
import { createLogger, createMetrics, startTracing, type Logger, type Metrics } from '@switchyard/telemetry';
import type pg from 'pg';
import type { CommonConfig } from './env-config.ts';
import { throttledErrors } from './throttled-errors.ts';

/** What every Switchyard process opens at start, from its validated common config. */
export interface ProcessResources {
  log: Logger;
  metrics: Metrics;
  pool: pg.Pool;
  /** Commands (queues, publishes). BullMQ needs maxRetriesPerRequest: null on it. */
  redis: Redis;
  /**
   * The platform's own short commands (hint publishes, fair-order scripts, rate limits), auto-
   * pipelined: everything issued in one event-loop turn leaves in one write. On this benchmark's
   * machine a socket write was a third of a process's CPU, and this cut the gateway's Redis writes
   * per task from six to two. Never handed to BullMQ, whose maintainers advise against
   * auto-pipelining its multi-step job protocol. Its commands never wait out a Redis outage
   * (COMMANDS_CONNECTION_OPTIONS). Opened on first use, as is `redis`.
   */
  commands: Redis;
  /** A dedicated pub/sub connection. */
  subscriber: Redis;
  keys: QueueKeys;
  secrets: SecretBox;
  /** Closes the connections and flushes traces; call last in the drain. */
  close(): Promise<void>;
  /**
   * Flushes traces only (bounded by the exporter's shutdown timeout), for an exit that cannot
   * wait for close(): the shutdown deadline (handleSignals' beforeForcedExit).
   */
  flushTracing(): Promise<void>;
}

/**
 * The composition every main.ts starts with: logger (with trace ids), tracing (configured only by
 * the OTEL_* variables in `env`), metrics, a small Postgres pool and up to three Redis connections
 * (pub/sub, and on first use BullMQ's and the auto-pipelined commands), each with error listeners
 * so a dropped connection is logged and retried, never a crash.
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
    tenantLabel: config.METRICS_TENANT_LABEL,
    onCollectError: (err, collector) => log.warn({ err, collector }, 'metrics source failed'),
  });
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    maxConnections: config.PG_POOL_MAX,
    preparedStatements: config.PG_PREPARED_STATEMENTS,
    idleTimeoutMs: config.PG_IDLE_TIMEOUT_MS,
    connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
    applicationName: `switchyard-${service}`,
  });
  // An idle client's socket dying (a Postgres restart) must not crash the process.
  pool.on('error', (err) => log.warn({ err }, 'idle Postgres client failed'));
  const opened: Redis[] = [];
  // Named for CLIENT LIST: which process and which of its connections each Redis client is.
  const connect = (options: RedisOptions, role: string, what: string) => {
    const connectionName = `switchyard-${service}-${process.pid}-${role}`;
    const connection = new Redis(config.REDIS_URL, { ...options, connectionName });
    // An error per reconnect attempt while Redis is away: the first, then one line per 30 s.
    const reportError = throttledErrors(log, `${what} error; reconnecting`);
    connection.on('error', reportError);
    connection.on('ready', () => reportError.recovered());
    opened.push(connection);
    return connection;
  };
  // BullMQ's and the commands connection open on first use: the pusher needs neither and the
  // console no commands, and an idle connection is still a client Redis keeps and pings.
  let redis: Redis | undefined;
  let commands: Redis | undefined;
  const subscriber = connect(
    { maxRetriesPerRequest: null },
    'subscriber',
    'Redis subscriber (readers poll meanwhile)',
  );
  metrics.resources.observePgPool(pool);
  // Every process subscribes, so the subscriber's link is the one that says whether it reaches Redis.
  metrics.resources.observeRedis(() => subscriber.status === 'ready');
  return {
    log,
    metrics,
    pool,
    get redis() {
      if (!redis) {
        redis = connect({ maxRetriesPerRequest: null }, 'queue', 'Redis');
        // The queue's connection, so every process that dispatches or consumes says so.
        watchEvictionPolicy(redis, (maxmemoryPolicy) =>
          log.warn(
            { maxmemoryPolicy },
            `Redis may evict keys (maxmemory-policy ${maxmemoryPolicy}): set it to noeviction, or queued jobs, their locks and run-cap slots can vanish under memory pressure (the reaper re-dispatches lost tasks from Postgres, late)`,
          ),
        );
      }
      return redis;
    },
    get commands() {
      return (commands ??= guardCommands(
        connect(COMMANDS_CONNECTION_OPTIONS, 'commands', 'Redis (pipelined commands)'),
        (open) =>
          open
            ? log.warn(
                'Redis is not answering (a command timed out): hints, fair order and rate limits skipped',
              )
            : log.info('Redis answers again: hints, fair order and rate limits resume'),
      ));
    },
    subscriber,
    keys: createQueueKeys(config.SWITCHYARD_REDIS_PREFIX),
    secrets: createSecretBox(config.SWITCHYARD_SECRET_KEY, config.SWITCHYARD_SECRET_KEY_PREVIOUS),
    async close() {
      try {
        for (const connection of opened) connection.disconnect();
        await pool.end();
      } finally {
        // Spans go out even when the pool's end fails.
        await tracing.shutdown();
      }
    },
    flushTracing: () => tracing.shutdown(),
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
