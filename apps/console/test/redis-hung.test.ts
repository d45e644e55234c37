import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent } from '@switchyard/agents';
import { createTaskService } from '@switchyard/engine';
import { TaskState } from '@switchyard/protocol';
import { COMMANDS_CONNECTION_OPTIONS, createQueueKeys, guardCommands } from '@switchyard/queue';
import { createDb, createSecretBox, PostgresAdminStore } from '@switchyard/store';
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

// A Redis that stops answering (hung, or packets dropped) must not hold the console, just when
// operators look: the queues page's dispatch counts live in Redis but the rest of it comes from
// Postgres, and a cancel commits in Postgres whatever becomes of its hint.
const SECRET = 'console-hung-redis-secret-0123';
const redis = createTestRedis();
let db: TestDatabase;
let proxy: TcpProxy;
let connection: Redis;
let commands: Redis;
let app: Console;
let base: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const target = new URL(redis.url);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
  connection = new Redis(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: null });
  connection.on('error', () => undefined);
  commands = guardCommands(new Redis(`redis://127.0.0.1:${proxy.port}`, COMMANDS_CONNECTION_OPTIONS));
  commands.on('error', () => undefined);
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
    commands,
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
  commands.disconnect();
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

describe('a cancel while Redis does not answer', () => {
  it('commits and answers; only its hint is given up', async () => {
    const secrets = createSecretBox(SECRET);
    const admin = new PostgresAdminStore({ db: createDb(db.pool), secrets });
    await admin.ensureTenant({ id: 'acme', name: 'Acme' });
    const echo = findBundledAgent('echo')!;
    await admin.upsertAgent({
      tenantId: 'acme',
      id: 'echo',
      card: echo.card as unknown as Record<string, unknown>,
      executor: 'echo',
    });
    // A client's send, through a gateway whose Redis answers; no worker runs, so the task waits.
    const sender = createTaskService({
      pool: db.pool,
      redis: redis.connect(),
      subscriber: redis.connect(),
      keys: createQueueKeys(redis.prefix),
      secrets,
      log: silentLogger(),
      urlPolicy: { allowCidrs: [], allowHttp: false },
    });
    const agent = (await sender.service.resolveAgent('acme', 'echo'))!;
    const sent = await sender.service.send({ tenantId: 'acme', principal: 'ops', admin: true }, agent, {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hold on' }] },
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const taskId = sent.task.id;
    proxy.freeze();
    // Without the commands connection's time limit the cancel waited on its hint for as long as
    // Redis stayed hung: the test's own timeout is the check.
    const res = await fetch(`${base}/api/tasks/acme/${taskId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect((await app.services.tasks.getTaskRecord('acme', taskId))?.state).toBe(TaskState.CANCELED);
    await sender.close();
  }, 8000);
});
