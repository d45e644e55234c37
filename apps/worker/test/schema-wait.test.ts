import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledAgents } from '@switchyard/agents';
import { createTaskService, createWorkerRuntime, type WorkerOptions } from '@switchyard/engine';
import { TaskState } from '@switchyard/protocol';
import { createQueueKeys } from '@switchyard/queue';
import { createDb, createSecretBox, PostgresAdminStore, type Caller } from '@switchyard/store';
import { createLogger, silentLogger } from '@switchyard/telemetry';
import {
  createTestDatabase,
  createTestRedis,
  waitFor,
  type TestDatabase,
  type TestRedis,
} from '@switchyard/testing';

// A new worker of a rolling upgrade may start before the migrations Job has run: it must not run
// new statements on the old schema. It waits, consuming, reaping and scheduling nothing, until the
// schema is current, and a shutdown meanwhile still works.
/** pg's Pool, as the worker takes it (this package has no @types/pg of its own). */
type Pool = WorkerOptions['pool'];
const secrets = createSecretBox('schema-wait-secret-key-0123');
const alice: Caller = { tenantId: 'acme', principal: 'alice', admin: false };
let db: TestDatabase;
let redis: TestRedis;
let keys: ReturnType<typeof createQueueKeys>;
let service: ReturnType<typeof createTaskService>;
let admin: PostgresAdminStore;

beforeAll(async () => {
  db = await createTestDatabase();
  redis = createTestRedis();
  keys = createQueueKeys(redis.prefix);
  admin = new PostgresAdminStore({ db: createDb(db.pool), secrets });
  await admin.ensureTenant({ id: 'acme', name: 'acme' });
  const echo = bundledAgents.find((a) => a.executor === 'echo')!;
  await admin.upsertAgent({
    tenantId: 'acme',
    id: 'echo',
    card: echo.card as unknown as Record<string, unknown>,
    executor: 'echo',
    settings: {},
  });
  service = createTaskService({
    pool: db.pool,
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    secrets,
    log: silentLogger(),
    urlPolicy: { allowCidrs: [], allowHttp: false },
  });
});
afterAll(async () => {
  await service.close();
  await redis.cleanup();
  await db.drop();
});

/** Takes the newest migration out of the ledger: the schema of the release before. */
async function rollBackLedger(): Promise<() => Promise<void>> {
  const { rows } = await db.pool.query<{ version: number; name: string; checksum: string }>(
    'DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING version, name, checksum',
  );
  const row = rows[0]!;
  return async () => {
    await db.pool.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
      row.version,
      row.name,
      row.checksum,
    ]);
  };
}

/** The test database's pool, counting the schema checks made through it. */
function countingSchemaChecks(pool: Pool): { pool: Pool; checks: () => number } {
  let checks = 0;
  const counted = new Proxy(pool, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop === 'query')
        return (...args: Parameters<Pool['query']>) => {
          if (String(args[0]).includes('schema_migrations')) checks += 1;
          return (target.query as (...a: unknown[]) => unknown).apply(target, args);
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { pool: counted, checks: () => checks };
}

function worker(pool: Pool, lines: Array<{ level: number; msg: string }>) {
  return createWorkerRuntime({
    pool,
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    secrets,
    log: createLogger({
      name: 'worker',
      destination: {
        write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }),
      },
    }),
    concurrency: 2,
    shutdownGraceMs: 0,
    schemaPollMs: 50,
    retention: { everyMs: 1000 },
    tableUpkeepEveryMs: false,
    engine: { reaperIntervalMs: 100, dispatchGraceMs: 100 },
  });
}

describe('a worker started before the migrations ran', () => {
  it('takes no job and schedules no maintenance until the schema is current, then goes on', async () => {
    const restore = await rollBackLedger();
    const lines: Array<{ level: number; msg: string }> = [];
    const { pool, checks } = countingSchemaChecks(db.pool);
    const w = worker(pool, lines);
    // BullMQ keeps a queue's job schedulers in this sorted set.
    const inspect = redis.connect();
    const schedulers = () => inspect.zcard(`${keys.bullPrefix}:${keys.maintenanceQueue}:repeat`);
    try {
      w.start();
      const sent = await service.service.send(alice, (await admin.getAgent('acme', 'echo'))!, {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'wait for it' }] },
        configuration: { returnImmediately: true },
      });
      if (!('task' in sent)) throw new Error('expected a task');
      const taskId = sent.task.id;
      const checked = checks();
      await waitFor(() => checks() >= checked + 5, { what: 'five more schema checks' });

      expect(w.state).toBe('starting');
      expect((await service.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.SUBMITTED);
      expect(await schedulers()).toBe(0);
      expect(await w.ready()).toMatchObject({ migrations: false, running: false });

      await restore();
      await waitFor(
        async () => (await service.store.getTaskRecord('acme', taskId))?.state === TaskState.COMPLETED,
        {
          what: 'the task to run once the schema is current',
        },
      );
      expect(w.state).toBe('running');
      await waitFor(async () => (await schedulers()) > 0, { what: 'maintenance scheduled' });
      const said = lines.filter((l) => l.msg.startsWith('database migrations'));
      expect(said.map((l) => l.level)).toEqual([40, 30]);
    } finally {
      await w.stop();
    }
  });

  it('stops while it waits', async () => {
    const restore = await rollBackLedger();
    const w = worker(db.pool, []);
    try {
      w.start();
      expect(w.state).toBe('starting');
      await w.stop();
      expect(w.state).toBe('stopped');
    } finally {
      await restore();
    }
  });
});
