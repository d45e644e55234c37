import { bookingAgent, echoAgent, invoiceReconcilerAgent, slowAgent } from '@switchyard/agents';
import { createWorkerRuntime, type EngineConfig, type WorkerRuntime } from '@switchyard/engine';
import { createGateway, loadGatewayConfig, type Gateway } from '@switchyard/gateway';
import { createQueueKeys } from '@switchyard/queue';
import { createDb, createSecretBox, PostgresAdminStore } from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import { createTestDatabase, createTestRedis, freePort } from '@switchyard/testing';

export const ADMIN_TOKEN = 'client-test-admin-token-0123456789';
export const TENANT = 'acme';

/** Short engine timings so a lost hint or a dead lease costs little in tests. */
const TEST_ENGINE: Partial<EngineConfig> = { pollIntervalMs: 200 };

export interface Platform {
  /** Origin of the gateway (stable across restarts: same port). */
  url: string;
  /** Base URL of an agent of tenant acme: `{url}/agents/acme/{id}`. */
  agentUrl(id: string): string;
  cardUrl(id: string): string;
  apiKey: string;
  /** Stops the gateway and starts a new one on the same port, database and Redis prefix. */
  restartGateway(between?: () => Promise<void>): Promise<void>;
  /** The running gateway. */
  gateway(): Gateway;
  stop(): Promise<void>;
}

/**
 * A real Switchyard for one test file: its own database (cloned from the migrated template) and
 * Redis prefix, a gateway on an ephemeral port and an in-process worker, with tenant acme, the
 * bundled agents and an API key for alice. Agents: echo, booking, invoices, slow (3 steps over
 * 1.5 s), sleepy (2 minutes, something to cancel; tests cancel what they start).
 */
export async function startPlatform(): Promise<Platform> {
  const db = await createTestDatabase();
  const redis = createTestRedis();
  const keys = createQueueKeys(redis.prefix);
  const secrets = createSecretBox('client-test-secret-key-0123456789');
  const admin = new PostgresAdminStore({ db: createDb(db.pool), secrets });
  await admin.createTenant({ id: TENANT, name: 'Acme' });
  const agents: Array<[string, { card: object }, string, Record<string, unknown>]> = [
    ['echo', echoAgent, 'echo', {}],
    ['booking', bookingAgent, 'booking', {}],
    ['invoices', invoiceReconcilerAgent, 'invoice-reconciler', {}],
    ['slow', slowAgent, 'slow', { delayMs: 1500, steps: 3, progress: 'both' }],
    ['sleepy', slowAgent, 'slow', { delayMs: 120_000 }],
  ];
  for (const [id, agent, executor, settings] of agents) {
    await admin.upsertAgent({ tenantId: TENANT, id, card: { ...agent.card }, executor, settings });
  }
  const issued = await admin.createApiKey({ tenantId: TENANT, principal: 'alice', role: 'tenant_admin' });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadGatewayConfig({
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    SWITCHYARD_REDIS_PREFIX: redis.prefix,
    LOG_LEVEL: 'silent',
    PORT: String(port),
    PUBLIC_URL: url,
    SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN,
    SWITCHYARD_DEFAULT_AGENT: `${TENANT}/echo`,
    BLOCKING_TIMEOUT_MS: '15000',
    RATE_LIMIT_TENANT_PER_SEC: '100000',
    RATE_LIMIT_KEY_PER_SEC: '100000',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    SHUTDOWN_GRACE_MS: '500',
  });
  const newGateway = () =>
    createGateway({
      pool: db.pool,
      redis: redis.connect(),
      subscriber: redis.connect(),
      keys,
      secrets,
      log: silentLogger(),
      config,
      engine: TEST_ENGINE,
    });
  let gateway = newGateway();
  await gateway.start(port);
  const worker: WorkerRuntime = createWorkerRuntime({
    pool: db.pool,
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    secrets,
    log: silentLogger(),
    concurrency: 8,
    shutdownGraceMs: 0,
    engine: { ...TEST_ENGINE, reaperIntervalMs: 500, dispatchGraceMs: 2000 },
  });
  worker.start();
  const base = (id: string) => `${url}/agents/${TENANT}/${id}`;
  return {
    url,
    apiKey: issued.plaintext,
    agentUrl: base,
    cardUrl: (id) => `${base(id)}/.well-known/agent-card.json`,
    gateway: () => gateway,
    async restartGateway(between) {
      await gateway.stop();
      await between?.();
      gateway = newGateway();
      await gateway.start(port);
    },
    async stop() {
      await gateway.stop();
      await worker.stop();
      await redis.cleanup();
      await db.drop();
    },
  };
}
