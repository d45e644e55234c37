import { bundledAgents, findBundledAgent, type Agent } from '@switchyard/agents';
import { createTaskService, createWorkerRuntime, type WorkerRuntime } from '@switchyard/engine';
import type { Message, SendMessageRequest, Task } from '@switchyard/protocol';
import { createQueueKeys, type QueueKeys } from '@switchyard/queue';
import {
  createDb,
  createSecretBox,
  PostgresAdminStore,
  PostgresOutboxStore,
  PostgresTaskStore,
  type Db,
} from '@switchyard/store';
import { silentLogger, type Logger } from '@switchyard/telemetry';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@switchyard/testing';
import { createConsole, loadConsoleConfig, type Console } from '../../src/index.ts';
import { createGatedAgent, GATED_EXECUTOR, type GatedAgent } from './gated-agent.ts';

export const ADMIN_TOKEN = 'console-test-admin-token-0123456789';
const SECRET = 'console-test-secret-key-0123';
export const TENANTS = ['acme', 'globex'] as const;

/** Agents registered in every tenant besides the bundled ones. */
export const TEST_AGENTS = [
  // Runs for a minute unless canceled: the cancel test.
  { id: 'slow-long', executor: 'slow', settings: { delayMs: 60_000, steps: 60, progress: 'status' } },
  // Progress steps at the test's pace (support/gated-agent.ts): live assertions without timers.
  { id: 'gated', executor: GATED_EXECUTOR, settings: {} },
] as const;

/**
 * A console on its own database and Redis prefix, plus what a test needs around it: a task service
 * standing in for the gateway (tasks are created the way clients create them), in-process workers,
 * and the stores for assertions.
 */
export interface ConsoleHarness {
  db: TestDatabase;
  kdb: Db;
  redis: TestRedis;
  keys: QueueKeys;
  console: Console;
  baseUrl: string;
  tasks: PostgresTaskStore;
  admin: PostgresAdminStore;
  outbox: PostgresOutboxStore;
  /** The agent behind `gated`: the test opens its steps. */
  gated: GatedAgent;
  /** SendMessage with returnImmediately, as tenant admin `ops` of `tenantId`. */
  send(tenantId: string, agentId: string, text: string, extra?: SendExtra): Promise<Task>;
  startWorker(): WorkerRuntime;
  close(): Promise<void>;
}

export interface SendExtra {
  contextId?: string;
  /** Continue this task (it must be waiting for input). */
  taskId?: string;
  pushUrl?: string;
  owner?: string;
}

export async function startConsoleHarness(
  env: Record<string, string> = {},
  /** The console's logger (a test that reads its lines); silent when absent, as the rest is. */
  consoleLog?: Logger,
): Promise<ConsoleHarness> {
  const db = await createTestDatabase();
  const redis = createTestRedis();
  const gated = createGatedAgent();
  const findAgent = (executor: string): Agent | undefined =>
    executor === GATED_EXECUTOR ? gated.agent : findBundledAgent(executor);
  const keys = createQueueKeys(redis.prefix);
  const secrets = createSecretBox(SECRET);
  const kdb = createDb(db.pool);
  const admin = new PostgresAdminStore({ db: kdb, secrets });
  for (const tenantId of TENANTS) {
    await admin.ensureTenant({ id: tenantId, name: `${tenantId} Inc.` });
    for (const a of bundledAgents) {
      await admin.upsertAgent({
        tenantId,
        id: a.executor,
        card: a.card as unknown as Record<string, unknown>,
        executor: a.executor,
      });
    }
    for (const a of TEST_AGENTS) {
      const card = (a.executor === GATED_EXECUTOR ? gated.agent : findBundledAgent(a.executor))?.card;
      await admin.upsertAgent({
        tenantId,
        id: a.id,
        card: { ...(card as unknown as Record<string, unknown>), name: a.id },
        executor: a.executor,
        settings: { ...a.settings },
      });
    }
  }
  const log = silentLogger();
  const engine = {
    leaseMs: 3000,
    reaperIntervalMs: 500,
    dispatchGraceMs: 1000,
    retryBaseMs: 50,
    pollIntervalMs: 200,
  };
  const gateway = createTaskService({
    pool: db.pool,
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    secrets,
    log,
    engine,
    urlPolicy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
  });
  const config = loadConsoleConfig({
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    SWITCHYARD_REDIS_PREFIX: redis.prefix,
    SWITCHYARD_SECRET_KEY: SECRET,
    SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    CONSOLE_LIVE_POLL_MS: '250',
    SHUTDOWN_GRACE_MS: '200',
    TRACE_UI_URL: 'http://jaeger.test:16686',
    GATEWAY_PUBLIC_URL: 'http://gateway.test:8080',
    ...env,
  });
  const app = createConsole({
    pool: db.pool,
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    secrets,
    log: consoleLog ?? log,
    config,
  });
  const port = await app.start(0);
  const workers: WorkerRuntime[] = [];
  return {
    db,
    kdb,
    redis,
    keys,
    console: app,
    gated,
    baseUrl: `http://127.0.0.1:${port}`,
    tasks: new PostgresTaskStore({ db: kdb, secrets }),
    admin,
    outbox: new PostgresOutboxStore({ db: kdb, secrets }),
    async send(tenantId, agentId, text, extra = {}) {
      const agent = await gateway.service.resolveAgent(tenantId, agentId);
      if (!agent) throw new Error(`no agent ${tenantId}/${agentId}`);
      const message: Message = {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ text }],
        ...(extra.contextId ? { contextId: extra.contextId } : {}),
        ...(extra.taskId ? { taskId: extra.taskId } : {}),
      };
      const request: SendMessageRequest = {
        message,
        configuration: {
          returnImmediately: true,
          ...(extra.pushUrl
            ? { taskPushNotificationConfig: { url: extra.pushUrl, token: 'push-token' } }
            : {}),
        },
      };
      const caller = { tenantId, principal: extra.owner ?? 'ops', admin: true };
      const result = await gateway.service.send(caller, agent, request);
      if (!('task' in result)) throw new Error('expected a task');
      return result.task;
    },
    startWorker() {
      const worker = createWorkerRuntime({
        pool: db.pool,
        redis: redis.connect(),
        subscriber: redis.connect(),
        keys,
        secrets,
        log,
        concurrency: 4,
        engine,
        shutdownGraceMs: 200,
        retention: false,
        tableUpkeepEveryMs: false,
        findAgent,
      });
      worker.start();
      workers.push(worker);
      return worker;
    },
    async close() {
      await app.stop();
      await Promise.all(workers.map((w) => w.stop()));
      await gateway.close();
      await redis.cleanup();
      await db.drop();
    },
  };
}
