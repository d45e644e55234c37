// Gateway entry point: validated config → pools and clients → createGateway → listen; drain on SIGTERM.
import { Redis } from 'ioredis';
import { createQueueKeys } from '@switchyard/queue';
import { handleSignals } from '@switchyard/runtime';
import { createPool, createSecretBox } from '@switchyard/store';
import { createLogger, createMetrics, startTracing } from '@switchyard/telemetry';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';

const config = loadGatewayConfig(process.env);
const log = createLogger({ name: 'gateway', level: config.LOG_LEVEL, withTraceIds: true });
const tracing = await startTracing({ serviceName: 'switchyard-gateway', env: process.env, log });
const metrics = createMetrics({
  service: 'gateway',
  onCollectError: (err, collector) => log.warn({ err, collector }, 'metrics source failed'),
});
const pool = createPool({
  connectionString: config.DATABASE_URL,
  maxConnections: config.PG_POOL_MAX,
  applicationName: 'switchyard-gateway',
});
// BullMQ needs maxRetriesPerRequest: null on the connection it shares.
const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
const subscriber = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
pool.on('error', (err) => log.warn({ err }, 'idle Postgres client failed'));
redis.on('error', (err) => log.warn({ err }, 'Redis error; retrying'));
subscriber.on('error', (err) => log.warn({ err }, 'Redis subscriber error; streams fall back to polling'));
metrics.resources.observePgPool(pool);
metrics.resources.observeRedis(() => redis.status === 'ready');
const gateway = createGateway({
  pool,
  redis,
  subscriber,
  keys: createQueueKeys(config.SWITCHYARD_REDIS_PREFIX),
  secrets: createSecretBox(config.SWITCHYARD_SECRET_KEY),
  log,
  config,
  metrics,
});
await gateway.start(config.PORT);
handleSignals(
  {
    async stop() {
      await gateway.stop();
      redis.disconnect();
      await pool.end();
      await tracing.shutdown();
    },
  },
  log,
);
