import { afterAll, afterEach, beforeAll } from 'vitest';
import { randomUUID } from 'node:crypto';
import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { createQueueKeys } from '@switchyard/queue';
import {
  createDb,
  createSecretBox,
  PostgresAdminStore,
  PostgresOutboxStore,
  PostgresPushConfigStore,
  PostgresTaskStore,
  type Db,
  type DeliveryRecord,
  type NewPushConfig,
  type SecretBox,
} from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@switchyard/testing';
import { startReceiver, type Receiver } from './receiver.ts';
import { createPusher, type Pusher, type PusherOptions, type PusherSettings } from '../src/create-pusher.ts';

export const SECRET_KEY = 'pusher-test-secret-key';

/** One cloned database per test file, with the stores a test needs to make real outbox rows. */
export interface PusherTestEnv {
  testDb: TestDatabase;
  db: Db;
  secrets: SecretBox;
  admin: PostgresAdminStore;
  tasks: PostgresTaskStore;
  pushConfigs: PostgresPushConfigStore;
  outbox: PostgresOutboxStore;
}

export async function openPusherTestEnv(): Promise<PusherTestEnv> {
  const testDb = await createTestDatabase();
  // The forced DROP at teardown kills idle clients; their FATAL must not surface as uncaught.
  testDb.pool.on('error', () => {});
  const db = createDb(testDb.pool);
  const secrets = createSecretBox(SECRET_KEY);
  return {
    testDb,
    db,
    secrets,
    admin: new PostgresAdminStore({ db, secrets }),
    tasks: new PostgresTaskStore({ db, secrets }),
    pushConfigs: new PostgresPushConfigStore({ db, secrets }),
    outbox: new PostgresOutboxStore({ db, secrets }),
  };
}

/** A tenant of its own with its Standard Webhooks secret. */
export async function newTenant(env: PusherTestEnv): Promise<{ tenantId: string; webhookSecret: string }> {
  const tenantId = `t-${randomUUID().slice(0, 8)}`;
  const { webhookSecret } = await env.admin.createTenant({ id: tenantId, name: tenantId });
  return { tenantId, webhookSecret };
}

/** The event with seq `seq`: the seq rides in metadata so a receiver can check the body too. */
export function eventFor(taskId: string, contextId: string, seq: number): StreamResponse {
  return { statusUpdate: { taskId, contextId, status: { state: TaskState.WORKING }, metadata: { seq } } };
}

export interface SeededTask {
  taskId: string;
  contextId: string;
  /** The version (= last event seq). */
  version: number;
}

/** A visible task (event 1 = its snapshot) with an optional first push config, made by the real store. */
export async function createTask(
  env: PusherTestEnv,
  tenantId: string,
  pushConfig?: NewPushConfig,
  traceContext?: { traceparent: string },
): Promise<SeededTask> {
  const taskId = randomUUID();
  const contextId = randomUUID();
  const result = await env.tasks.createTask({
    tenantId,
    id: taskId,
    contextId,
    agentId: 'echo',
    owner: 'alice',
    visibility: 'task',
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    event: { task: { id: taskId, contextId, status: { state: TaskState.SUBMITTED } } },
    ...(pushConfig ? { pushConfig } : {}),
    ...(traceContext ? { traceContext } : {}),
  });
  if (!result.created) throw new Error('expected a new task');
  return { taskId, contextId, version: 1 };
}

/** Appends `count` events by compare-and-set changes; each commits its outbox rows with it. */
export async function appendEvents(
  env: PusherTestEnv,
  tenantId: string,
  task: SeededTask,
  count: number,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    const seq = task.version + 1;
    await env.tasks.changeTask({
      tenantId,
      taskId: task.taskId,
      expectedVersion: task.version,
      patch: {},
      event: eventFor(task.taskId, task.contextId, seq),
    });
    task.version = seq;
  }
}

export async function deliveriesOf(
  env: PusherTestEnv,
  tenantId: string,
  taskId: string,
): Promise<DeliveryRecord[]> {
  return env.outbox.listDeliveries(tenantId, taskId);
}

export const TEST_SETTINGS: Omit<PusherSettings, 'workerId'> = {
  concurrency: 4,
  // No caps (fairness.test.ts sets its own): the other tests are about one tenant's deliveries.
  maxInFlightPerTenant: 4,
  maxInFlightPerHost: 4,
  timeoutMs: 2000,
  lockMs: 5000,
  pollMs: 50,
  retry: { maxAttempts: 4, baseMs: 20, maxMs: 200 },
  policy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
  shutdownGraceMs: 3000,
};

export type TestPusherOverrides = Partial<PusherSettings> &
  Pick<Partial<PusherOptions>, 'resolve' | 'random'>;

/** A pusher on the test database and the test's Redis prefix; stop it in afterEach. */
export function makePusher(
  env: PusherTestEnv,
  redis: TestRedis,
  overrides: TestPusherOverrides = {},
): Pusher {
  const { resolve, random, ...settings } = overrides;
  return createPusher({
    pool: env.testDb.pool,
    subscriber: redis.connect(),
    keys: createQueueKeys(redis.prefix),
    secrets: env.secrets,
    log: silentLogger(),
    settings: { workerId: `pusher-${randomUUID().slice(0, 8)}`, ...TEST_SETTINGS, ...settings },
    ...(resolve ? { resolve } : {}),
    ...(random ? { random } : {}),
  });
}

/**
 * Per-test Redis prefix and the pushers a test started, all cleaned up by `dispose`, which also
 * empties the outbox: pushers claim across tenants, so a test's leftovers would reach the next.
 */
export function testScope(env: () => PusherTestEnv) {
  const pushers: Pusher[] = [];
  let redis: TestRedis | undefined;
  return {
    get redis(): TestRedis {
      redis ??= createTestRedis();
      return redis;
    },
    pusher(overrides: TestPusherOverrides = {}): Pusher {
      const p = makePusher(env(), this.redis, overrides);
      pushers.push(p);
      return p;
    },
    async dispose(): Promise<void> {
      await Promise.all(pushers.splice(0).map((p) => p.stop()));
      await redis?.cleanup();
      redis = undefined;
      await env().db.deleteFrom('push_deliveries').execute();
    },
  };
}

/**
 * The setup every pusher test file shares: one database, one webhook receiver and a test scope,
 * reset after each test (receiver answers 204 again) and torn down after the file.
 */
export function usePusherSuite() {
  const suite = {} as { env: PusherTestEnv; receiver: Receiver; scope: ReturnType<typeof testScope> };
  suite.scope = testScope(() => suite.env);
  beforeAll(async () => {
    suite.env = await openPusherTestEnv();
    suite.receiver = await startReceiver();
  });
  afterEach(async () => {
    await suite.scope.dispose();
    suite.receiver.requests.length = 0;
    suite.receiver.respond = () => ({ status: 204 });
  });
  afterAll(async () => {
    await suite.receiver.close();
    await suite.env.testDb.drop();
  });
  return suite;
}
