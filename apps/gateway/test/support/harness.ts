import type pg from 'pg';
import type { Agent } from '@switchyard/agents';
import { createWorkerRuntime, type EngineConfig, type WorkerRuntime } from '@switchyard/engine';
import {
  COMMANDS_CONNECTION_OPTIONS,
  createQueueKeys,
  guardCommands,
  type QueueKeys,
} from '@switchyard/queue';
import {
  createDb,
  createSecretBox,
  PostgresAdminStore,
  PostgresTaskStore,
  type SecretBox,
} from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  type TestDatabase,
  type TestRedis,
} from '@switchyard/testing';
import { createGateway, type Gateway } from '../../src/create-gateway.ts';
import { loadGatewayConfig } from '../../src/config.ts';
import { seedFixtures, type Fixtures } from './fixtures.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** Engine timings for tests: quick fallbacks so a lost hint costs little. */
const TEST_ENGINE: Partial<EngineConfig> = { pollIntervalMs: 200 };

export interface RunningGateway {
  gateway: Gateway;
  url: string;
  stop(): Promise<void>;
}

export interface Harness {
  db: TestDatabase;
  redis: TestRedis;
  keys: QueueKeys;
  secrets: SecretBox;
  admin: PostgresAdminStore;
  store: PostgresTaskStore;
  fixtures: Fixtures;
  /** The file's main gateway. */
  url: string;
  gateway: Gateway;
  worker: WorkerRuntime | undefined;
  /** Another gateway replica on the same database and Redis prefix. */
  /** `pool` gives the replica its own Postgres connections (through a proxy the test cuts, say). */
  startGateway(env?: Record<string, string>, options?: { pool?: pg.Pool }): Promise<RunningGateway>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** Extra gateway environment (e.g. RATE_LIMIT_KEY_PER_SEC). */
  env?: Record<string, string>;
  /** Run an in-process worker so tasks execute. Default true. */
  worker?: boolean;
  /** The worker's agents (default: the bundled ones), e.g. to add the upstream executor. */
  findAgent?: (executor: string) => Agent | undefined;
  /** Worker engine settings over the test defaults (e.g. short retry backoff). */
  workerEngine?: Partial<EngineConfig>;
}

/**
 * One gateway (plus a worker) per test file on its own database and Redis prefix, with the
 * fixture tenants, agents and keys of fixtures.ts.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const db = await createTestDatabase();
  const redis = createTestRedis();
  const keys = createQueueKeys(redis.prefix);
  const secrets = createSecretBox('test-secret-key-0123456789');
  const admin = new PostgresAdminStore({ db: createDb(db.pool), secrets });
  const store = new PostgresTaskStore({ db: createDb(db.pool), secrets });
  const fixtures = await seedFixtures(admin);
  const gateways: RunningGateway[] = [];

  const startGateway = async (
    env: Record<string, string> = {},
    { pool = db.pool }: { pool?: pg.Pool } = {},
  ): Promise<RunningGateway> => {
    const port = await freePort();
    const config = loadGatewayConfig({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      SWITCHYARD_REDIS_PREFIX: redis.prefix,
      LOG_LEVEL: 'silent',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN,
      SWITCHYARD_DEFAULT_AGENT: 'acme/echo',
      BLOCKING_TIMEOUT_MS: '15000',
      RATE_LIMIT_TENANT_PER_SEC: '100000',
      RATE_LIMIT_KEY_PER_SEC: '100000',
      // The suites try many bad keys from one address on purpose; the throttle has its own test.
      AUTH_FAILURES_PER_ADDRESS_PER_SEC: '100000',
      ...options.env,
      ...env,
    });
    const gateway = createGateway({
      pool,
      redis: redis.connect(),
      // As the processes run: hints, counters and rate limits on an auto-pipelined connection.
      commands: guardCommands(redis.connect(COMMANDS_CONNECTION_OPTIONS)),
      subscriber: redis.connect(),
      keys,
      secrets,
      log: silentLogger(),
      config,
      engine: TEST_ENGINE,
    });
    await gateway.start(port);
    const running = { gateway, url: `http://127.0.0.1:${port}`, stop: () => gateway.stop() };
    gateways.push(running);
    return running;
  };

  let worker: WorkerRuntime | undefined;
  if (options.worker !== false) {
    worker = createWorkerRuntime({
      pool: db.pool,
      redis: redis.connect(),
      commands: guardCommands(redis.connect(COMMANDS_CONNECTION_OPTIONS)),
      subscriber: redis.connect(),
      keys,
      secrets,
      log: silentLogger(),
      concurrency: 8,
      shutdownGraceMs: 0,
      engine: { ...TEST_ENGINE, reaperIntervalMs: 500, dispatchGraceMs: 2000, ...options.workerEngine },
      ...(options.findAgent ? { findAgent: options.findAgent } : {}),
    });
    worker.start();
  }
  const main = await startGateway();
  return {
    db,
    redis,
    keys,
    secrets,
    admin,
    store,
    fixtures,
    url: main.url,
    gateway: main.gateway,
    worker,
    startGateway,
    async stop() {
      for (const g of gateways) await g.stop();
      await worker?.stop();
      await redis.cleanup();
      await db.drop();
    },
  };
}
