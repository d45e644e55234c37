// Console entry point: validated config → pools and clients → createConsole → listen; drain on SIGTERM.
import { Redis } from 'ioredis';
import { createQueueKeys } from '@switchyard/queue';
import { handleSignals } from '@switchyard/runtime';
import { createPool, createSecretBox } from '@switchyard/store';
import { createLogger, createMetrics, startTracing } from '@switchyard/telemetry';
import { loadConsoleConfig } from './config.ts';
import { createConsole } from './create-console.ts';

const config = loadConsoleConfig(process.env);
const log = createLogger({ name: 'console', level: config.LOG_LEVEL, withTraceIds: true });
const tracing = await startTracing({ serviceName: 'switchyard-console', env: process.env, log });
const metrics = createMetrics({ service: 'console' });
const pool = createPool({
  connectionString: config.DATABASE_URL,
  maxConnections: config.PG_POOL_MAX,
  applicationName: 'switchyard-console',
});
// BullMQ (queue stats) needs maxRetriesPerRequest: null on the connection it shares.
const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
const subscriber = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
pool.on('error', (err) => log.warn({ err }, 'idle Postgres client failed'));
redis.on('error', (err) => log.warn({ err }, 'Redis error; retrying'));
subscriber.on('error', (err) => log.warn({ err }, 'Redis subscriber error'));
metrics.resources.observePgPool(pool);
metrics.resources.observeRedis(() => redis.status === 'ready');
const app = createConsole({
  pool,
  redis,
  subscriber,
  keys: createQueueKeys(config.SWITCHYARD_REDIS_PREFIX),
  secrets: createSecretBox(config.SWITCHYARD_SECRET_KEY),
  log,
  config,
  metrics,
});
await app.start(config.CONSOLE_PORT);
handleSignals(
  {
    async stop() {
      await app.stop();
      redis.disconnect();
      await pool.end();
      await tracing.shutdown();
    },
  },
  log,
);
