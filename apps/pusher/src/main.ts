// Pusher entry point: build pools and clients from validated config, run, drain on SIGTERM.
import { Redis } from 'ioredis';
import { createQueueKeys } from '@switchyard/queue';
import { handleSignals, startOpsServer } from '@switchyard/runtime';
import { createPool, createSecretBox } from '@switchyard/store';
import { createLogger, createMetrics, startTracing } from '@switchyard/telemetry';
import { loadPusherConfig, pusherSettings } from './config.ts';
import { createPusher } from './create-pusher.ts';

const config = loadPusherConfig(process.env);
const log = createLogger({ name: 'pusher', level: config.LOG_LEVEL, withTraceIds: true });
const tracing = await startTracing({ serviceName: 'switchyard-pusher', env: process.env, log });
const metrics = createMetrics({
  service: 'pusher',
  onCollectError: (err, collector) => log.warn({ err, collector }, 'metrics source failed'),
});
const pool = createPool({
  connectionString: config.DATABASE_URL,
  maxConnections: config.PG_POOL_MAX,
  applicationName: 'switchyard-pusher',
});
// An idle client's socket dying (Postgres restart) must not crash the process: the next claim reconnects.
pool.on('error', (err) => log.warn({ err }, 'idle Postgres client failed'));
const subscriber = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
subscriber.on('error', (err) => log.warn({ err }, 'Redis subscriber error; polling continues'));
const pusher = createPusher({
  pool,
  subscriber,
  keys: createQueueKeys(config.SWITCHYARD_REDIS_PREFIX),
  secrets: createSecretBox(config.SWITCHYARD_SECRET_KEY),
  log,
  settings: pusherSettings(config),
  metrics,
});
metrics.resources.observePgPool(pool);
metrics.resources.observeRedis(() => subscriber.status === 'ready');
const ops = await startOpsServer(config.PUSHER_OPS_PORT, {
  health: () => pusher.health(),
  ready: () => pusher.ready(),
  metrics: () => pusher.metrics(),
});
handleSignals(
  {
    async stop() {
      await pusher.stop();
      ops.close();
      subscriber.disconnect();
      await pool.end();
      await tracing.shutdown();
    },
  },
  log,
);
await pusher.start();
