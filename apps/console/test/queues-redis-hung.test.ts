import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueKeys } from '@switchyard/queue';
import { createSecretBox } from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import {
  createTestDatabase,
  createTestRedis,
  startTcpProxy,
  type TcpProxy,
  type TestDatabase,
} from '@switchyard/testing';
import { createConsole, loadConsoleConfig, type Console } from '../src/index.ts';
import { ADMIN_TOKEN } from './support/console-harness.ts';

// The queues page's dispatch counts live in Redis; the rest of it comes from Postgres. A Redis
// that stops answering (hung, or packets dropped) held the whole page, just when operators look.
const SECRET = 'console-hung-redis-secret-0123';
const redis = createTestRedis();
let db: TestDatabase;
let proxy: TcpProxy;
let connection: Redis;
let app: Console;
let base: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const target = new URL(redis.url);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
  connection = new Redis(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: null });
  connection.on('error', () => undefined);
  const config = loadConsoleConfig({
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    SWITCHYARD_REDIS_PREFIX: redis.prefix,
    SWITCHYARD_SECRET_KEY: SECRET,
    SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    SHUTDOWN_GRACE_MS: '200',
  });
  app = createConsole({
    pool: db.pool,
    redis: connection,
    subscriber: redis.connect(),
    keys: createQueueKeys(redis.prefix),
    secrets: createSecretBox(SECRET),
    log: silentLogger(),
    config,
  });
  base = `http://127.0.0.1:${await app.start(0)}`;
});
afterAll(async () => {
  proxy.thaw();
  await app.stop();
  connection.disconnect();
  await proxy.close();
  await redis.cleanup();
  await db.drop();
});

const get = (path: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

describe('the queues page while Redis does not answer', () => {
  it('answers from Postgres and says the dispatch counts are not available', async () => {
    expect(((await (await get('/api/queues')).json()) as { dispatch: unknown }).dispatch).not.toBeNull();
    proxy.freeze();
    const api = await get('/api/queues');
    expect(api.status).toBe(200);
    const overview = (await api.json()) as { dispatch: unknown; outbox: { pending: number } };
    expect(overview.dispatch).toBeNull();
    expect(overview.outbox.pending).toBe(0);
    const page = await get('/queues');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-testid="dispatch-queue-unavailable"');
  });
});
