import type { Redis } from 'ioredis';
import { bundledAgents, type Agent } from '@switchyard/agents';
import { createQueueKeys } from '@switchyard/queue';
import {
  createDb,
  createSecretBox,
  PostgresAdminStore,
  PostgresTaskStore,
  type Caller,
} from '@switchyard/store';
import { silentLogger, type Metrics } from '@switchyard/telemetry';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@switchyard/testing';
import {
  createTaskService,
  createWorkerRuntime,
  engineConfig,
  TaskRunner,
  TaskService,
  TaskWriter,
  type AgentRegistration,
  type Dispatcher,
  type EngineConfig,
  type WorkerRuntime,
} from '../src/index.ts';

export const SECRET = 'test-secret-key-0123456789';

/** A real platform in one process: Postgres DB and Redis prefix of its own, service and workers. */
export interface Platform {
  db: TestDatabase;
  redis: TestRedis;
  keys: ReturnType<typeof createQueueKeys>;
  store: PostgresTaskStore;
  admin: PostgresAdminStore;
  service: TaskService;
  config: EngineConfig;
  agent(id: string): Promise<AgentRegistration>;
  /** Registers `agent` (a bundled or a test's own) under its executor name, in `tenantId`. */
  registerAgent(agent: Agent, tenantId?: string): Promise<AgentRegistration>;
  /** Registers the bundled slow agent as `id` with these settings (steps, delayMs), in `tenantId`. */
  slowAgent(id: string, settings: Record<string, unknown>, tenantId?: string): Promise<AgentRegistration>;
  startWorker(overrides?: {
    concurrency?: number;
    workerId?: string;
    findAgent?: (executor: string) => Agent | undefined;
    /** The worker's hint and counter connection (ProcessResources.commands). */
    commands?: Redis;
    tenantStatusTtlMs?: number;
    maxRunningPerTenant?: number;
    metrics?: Metrics;
  }): WorkerRuntime;
  env(): Record<string, string>;
  close(): Promise<void>;
}

export const alice: Caller = { tenantId: 'acme', principal: 'alice', admin: false };
export const bob: Caller = { tenantId: 'acme', principal: 'bob', admin: false };
export const mallory: Caller = { tenantId: 'evil', principal: 'mallory', admin: false };

export async function startPlatform(
  overrides: Partial<EngineConfig> = {},
  /** The service's hint and counter connection (ProcessResources.commands); its queue's by default. */
  { commands }: { commands?: Redis } = {},
): Promise<Platform> {
  const db = await createTestDatabase();
  const redis = createTestRedis();
  const keys = createQueueKeys(redis.prefix);
  const kdb = createDb(db.pool);
  const secrets = createSecretBox(SECRET);
  const store = new PostgresTaskStore({ db: kdb, secrets });
  const admin = new PostgresAdminStore({ db: kdb, secrets });
  const registerAgent = (a: Agent, tenantId = 'acme') =>
    admin.upsertAgent({
      tenantId,
      id: a.executor,
      card: a.card as unknown as Record<string, unknown>,
      executor: a.executor,
      settings: {},
    });
  for (const tenant of ['acme', 'evil']) {
    await admin.ensureTenant({ id: tenant, name: tenant });
    for (const a of bundledAgents) await registerAgent(a, tenant);
  }
  const config = engineConfig({
    leaseMs: 1500,
    reaperIntervalMs: 300,
    dispatchGraceMs: 1000,
    retryBaseMs: 50,
    pollIntervalMs: 200,
    ...overrides,
  });
  const log = silentLogger();
  const bundle = createTaskService({
    pool: db.pool,
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    secrets,
    log,
    engine: config,
    urlPolicy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
    ...(commands ? { commands } : {}),
  });
  const service = bundle.service;
  const workers: WorkerRuntime[] = [];
  return {
    db,
    redis,
    keys,
    store,
    admin,
    service,
    config,
    registerAgent,
    async slowAgent(id, settings, tenantId = 'acme') {
      const slow = bundledAgents.find((a) => a.executor === 'slow')!;
      await admin.upsertAgent({
        tenantId,
        id,
        card: slow.card as unknown as Record<string, unknown>,
        executor: 'slow',
        settings,
      });
      return (await admin.getAgent(tenantId, id))!;
    },
    async agent(id) {
      const a = await admin.getAgent('acme', id);
      if (!a) throw new Error(`no agent ${id}`);
      return a;
    },
    startWorker({
      concurrency = 4,
      workerId,
      findAgent,
      commands,
      tenantStatusTtlMs,
      maxRunningPerTenant,
      metrics,
    } = {}) {
      const w = createWorkerRuntime({
        pool: db.pool,
        redis: redis.connect(),
        subscriber: redis.connect(),
        keys,
        secrets,
        log,
        concurrency,
        engine: config,
        shutdownGraceMs: 200,
        retention: false,
        tableUpkeepEveryMs: false,
        ...(workerId ? { workerId } : {}),
        ...(findAgent ? { findAgent } : {}),
        ...(commands ? { commands } : {}),
        ...(tenantStatusTtlMs ? { tenantStatusTtlMs } : {}),
        ...(maxRunningPerTenant ? { maxRunningPerTenant } : {}),
        ...(metrics ? { metrics } : {}),
      });
      w.start();
      workers.push(w);
      return w;
    },
    env() {
      return {
        DATABASE_URL: db.url,
        REDIS_URL: redis.url,
        SWITCHYARD_REDIS_PREFIX: redis.prefix,
        SWITCHYARD_SECRET_KEY: SECRET,
        LOG_LEVEL: 'warn',
        LEASE_MS: String(config.leaseMs),
        REAPER_INTERVAL_MS: String(config.reaperIntervalMs),
        DISPATCH_GRACE_MS: String(config.dispatchGraceMs),
        RETRY_BASE_MS: String(config.retryBaseMs),
        WORKER_OPS_PORT: '0',
        SHUTDOWN_GRACE_MS: '500',
      };
    },
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      await bundle.close();
      await redis.cleanup();
      await db.drop();
    },
  };
}

/** A minimal agent card for a test agent named `name`. */
export const testCard = (name: string) => ({
  name,
  description: name,
  version: '1.0.0',
  skills: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
});

export function userMessage(text: string, extra: Record<string, unknown> = {}) {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...extra };
}

/**
 * A TaskRunner outside any worker runtime, for tests that drive `run(job)` themselves: one agent
 * for every executor, no hub (no cancel hints), hints that go nowhere and a dispatcher that drops
 * re-dispatches unless the test passes its own.
 */
export function bareRunner(
  p: Platform,
  options: {
    agent: Agent | ((executor: string) => Agent | undefined);
    workerId: string;
    dispatcher?: Dispatcher;
    hints?: ConstructorParameters<typeof TaskWriter>[0]['hints'];
  },
): TaskRunner {
  const { agent, workerId } = options;
  return new TaskRunner({
    store: p.store,
    writer: new TaskWriter({
      store: p.store,
      hints: options.hints ?? { publish: async () => undefined, publishPushDue: async () => undefined },
      log: silentLogger(),
    }),
    dispatcher: options.dispatcher ?? { enqueue: async () => undefined },
    hub: { watch: () => () => undefined },
    agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
    findAgent: typeof agent === 'function' ? agent : () => agent,
    config: p.config,
    workerId,
    log: silentLogger(),
  });
}

/**
 * The platform's store with one method replaced (a fault, a delay, a lost answer), every other
 * one the real store's: for tests that need Postgres to misbehave at one precise step.
 */
export function storeWith<K extends keyof PostgresTaskStore>(
  store: PostgresTaskStore,
  method: K,
  replace: (real: PostgresTaskStore[K]) => PostgresTaskStore[K],
): PostgresTaskStore {
  const replaced = replace(
    (store[method] as (...a: unknown[]) => unknown).bind(store) as PostgresTaskStore[K],
  );
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === method) return replaced;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A TaskWriter whose hints go nowhere, for runners and services built by a test. */
export function quietWriter(store: PostgresTaskStore): TaskWriter {
  return new TaskWriter({
    store,
    hints: { publish: async () => undefined, publishPushDue: async () => undefined },
    log: silentLogger(),
  });
}

/** A task of the echo agent sent by alice with returnImmediately: committed and queued; its id. */
export async function queuedEchoTask(p: Platform, text = 'hello'): Promise<string> {
  const sent = await p.service.send(alice, await p.agent('echo'), {
    message: userMessage(text),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task.id;
}
