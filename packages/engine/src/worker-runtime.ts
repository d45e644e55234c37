import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { HintPublisher, SubscriptionHub } from '@switchyard/events';
import {
  closeWithin,
  REDIS_CLOSE_TIMEOUT_MS,
  JOB_NAMES,
  MaintenanceScheduler,
  TaskConsumer,
  TaskQueue,
  type MaintenanceJob,
  redisAnswers,
  type QueueKeys,
} from '@switchyard/queue';
import {
  createDb,
  databaseReadiness,
  isStoreUnavailable,
  PostgresAdminStore,
  PostgresTaskStore,
  runRetention,
  RetentionError,
  waitForCurrentSchema,
  upkeepTables,
  type RetentionOptions,
  type SecretBox,
} from '@switchyard/store';
import type { Logger, Metrics } from '@switchyard/telemetry';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { CachedAgentDirectory } from './cached-agent-directory.ts';
import { engineConfig, type EngineConfig } from './engine-config.ts';
import { Reaper } from './reaper.ts';
import { claimReaperTurn, redisScanPosition } from './reaper-turn.ts';
import { tellAgentFailed } from './runner/agent-end-hooks.ts';
import { TaskRunner } from './runner/task-runner.ts';
import { TaskWriter } from './task-writer.ts';
import { TenantStatus } from './tenant-status.ts';

/** How long a worker trusts what it read of a tenant's status: disabling reaches runs within it. */
const TENANT_STATUS_TTL_MS = 5_000;

/**
 * How long after a tenant's run cap changes its parked runs are brought back (admin API, console):
 * past the workers' cached read of the cap, so they are admitted under the new one.
 */
export const PARKED_RELEASE_AFTER_MS = TENANT_STATUS_TTL_MS + 1_000;

export interface WorkerOptions {
  pool: pg.Pool;
  /** Commands (queue, publishes). BullMQ needs maxRetriesPerRequest: null. */
  redis: Redis;
  /** Hint publishes and the fair-order scripts, when not on `redis` (ProcessResources.commands). */
  commands?: Redis;
  /** A dedicated connection for pub/sub. */
  subscriber: Redis;
  keys: QueueKeys;
  secrets: SecretBox;
  log: Logger;
  concurrency: number;
  /**
   * Runs of one tenant at once across all workers, for tenants without a cap of their own
   * (`tenants.max_running`; TaskConsumerOptions.tenantRunCap). Absent: no cap but their own.
   */
  maxRunningPerTenant?: number;
  engine?: Partial<EngineConfig>;
  /** Running agents get this long on shutdown before their tasks are handed back. Default 20 s. */
  shutdownGraceMs?: number;
  workerId?: string;
  /** How long a worker trusts a read of a tenant's status. Default 5 s (tests set it). */
  tenantStatusTtlMs?: number;
  /**
   * Retention schedule and TTLs (ARCHITECTURE.md §8). Runs once per interval across all workers.
   * Default: every hour with the store's default TTLs; `false` turns it off (tests).
   */
  retention?: (RetentionOptions & { everyMs?: number }) | false;
  /**
   * How often the tables' statistics are checked and brought up to date (store's upkeepTables),
   * once per interval across all workers. Default 15 s; `false` turns it off.
   */
  tableUpkeepEveryMs?: number | false;
  /** Prometheus metrics of this process (task, reaper and queue families). */
  metrics?: Metrics;
  /** Executor → agent; defaults to the bundled agents. */
  findAgent?: (executor: string) => Agent | undefined;
  /** While the schema is behind this release, how often start() checks it again, in ms. Default 2000. */
  schemaPollMs?: number;
}

export type WorkerState = 'created' | 'starting' | 'running' | 'draining' | 'stopped';

/**
 * The worker: consumes dispatches, runs agents under leases, and runs a reaper. Lifecycle
 * STARTING → RUNNING → DRAINING → STOPPED: start() waits until the schema is current, then
 * consumes; stop() takes no new jobs, lets runs finish within the grace period, then hands the
 * rest back (lease released, re-dispatched at once) and closes.
 */
export function createWorkerRuntime(options: WorkerOptions) {
  const { pool, redis, subscriber, keys, secrets, log } = options;
  const config = engineConfig(options.engine);
  const db = createDb(pool);
  const store = new PostgresTaskStore({ db, secrets });
  const admin = new PostgresAdminStore({ db, secrets });
  const commands = options.commands ?? redis;
  const queue = new TaskQueue({ connection: redis, counters: commands, keys, log });
  const hub = new SubscriptionHub({ subscriber, keys });
  const writer = new TaskWriter({
    store,
    hints: new HintPublisher({ redis: commands, keys }),
    log,
    ...(options.metrics ? { metrics: options.metrics.tasks } : {}),
  });
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const agents = new CachedAgentDirectory({ load: (t, a) => admin.getAgent(t, a) });
  // Read before a run starts (a disabled tenant's work waits) and before a take is admitted (the
  // tenant's own cap on runs at once): one cached read serves both.
  const tenants = new TenantStatus({
    load: (t) => admin.getTenant(t),
    ttlMs: options.tenantStatusTtlMs ?? TENANT_STATUS_TTL_MS,
  });
  const findAgent = options.findAgent ?? findBundledAgent;
  const runner = new TaskRunner({
    store,
    writer,
    dispatcher: queue,
    hub,
    agents,
    tenants,
    findAgent,
    config,
    workerId,
    log,
    ...(options.metrics ? { metrics: options.metrics.tasks } : {}),
  });
  const reaper = new Reaper({
    store,
    writer,
    dispatcher: queue,
    config,
    log,
    // One sweep per interval across all workers: the first to claim the turn sweeps. The turn
    // lasts the shortest jittered interval, so a sweep is never skipped for long.
    takeTurn: () => claimReaperTurn(redis, keys.reaperTurn, workerId, config.reaperIntervalMs * 0.75),
    scanPosition: redisScanPosition(redis, `${keys.reaperTurn}:scan`),
    onFailed: (task) => tellAgentFailed({ agents, findAgent, store }, task, log),
    ...(options.metrics ? { metrics: options.metrics.tasks } : {}),
  });
  options.metrics?.tasks.collectQueues(async () => {
    const stats = await queue.stats();
    return [
      {
        queue: keys.taskQueue,
        depth: stats.waiting + stats.delayed,
        oldestAgeSeconds: stats.oldestWaitingAgeMs / 1000,
      },
    ];
  });
  const consumer = new TaskConsumer({
    connection: redis,
    keys,
    concurrency: options.concurrency,
    handle: (job) => runner.run(job),
    handleCanceled: (job) => runner.canceled(job),
    onTaken: (level) => queue.taken(level),
    tenantRunCap: {
      ...(options.maxRunningPerTenant ? { maxRunning: options.maxRunningPerTenant } : {}),
      capFor: (tenantId: string) => tenants.runCap(tenantId),
    },
    ...(options.metrics
      ? { onParked: (tenant: string) => options.metrics!.tasks.runParked({ tenant }) }
      : {}),
    onError: (err) => log.error({ err }, 'queue consumer error'),
    // Postgres away: the claim decides nothing, and the job comes back after a pause.
    isTransient: isStoreUnavailable,
  });
  const maintenanceJobs: MaintenanceJob[] = [];
  if (options.retention !== false) {
    const { everyMs = 3_600_000, ...ttl } = options.retention ?? {};
    maintenanceJobs.push({
      name: JOB_NAMES.retention,
      everyMs,
      run: async () => {
        try {
          const removed = await runRetention(db, ttl);
          if (removed.skipped) log.info('retention run skipped: another worker is running one');
          else log.info({ removed }, 'retention run');
        } catch (err) {
          // What the steps that ran deleted is worth the log line too; the job still fails.
          // One line per failed step: the logger serializes an error only as the line's `err`.
          if (err instanceof RetentionError)
            for (const { step, error } of err.failures)
              log.error({ err: error, step, removed: err.result }, 'retention run: a step failed');
          throw err;
        }
      },
    });
  }
  if (options.tableUpkeepEveryMs !== false) {
    maintenanceJobs.push({
      name: JOB_NAMES.tableUpkeep,
      everyMs: options.tableUpkeepEveryMs ?? 15_000,
      run: async () => {
        const done = await upkeepTables(db);
        if (done.analyzed.length + done.vacuumed.length > 0) log.info(done, 'table upkeep');
      },
    });
  }
  const maintenance =
    maintenanceJobs.length > 0
      ? new MaintenanceScheduler({
          connection: redis,
          keys,
          jobs: maintenanceJobs,
          onError: (err) => log.error({ err }, 'maintenance error'),
        })
      : null;
  let state: WorkerState = 'created';
  const schemaWait = new AbortController();
  let starting: Promise<void> | undefined;

  const consume = () => {
    consumer.start();
    reaper.start();
    maintenance?.start().catch((err: unknown) => log.error({ err }, 'could not schedule maintenance'));
    state = 'running';
    log.info(
      {
        workerId,
        concurrency: options.concurrency,
        maxRunningPerTenant: options.maxRunningPerTenant ?? null,
      },
      'worker running',
    );
  };

  return {
    workerId,
    runner,
    reaper,
    queue,
    store,
    get state() {
      return state;
    },
    /**
     * Waits until the schema is current, then consumes, reaps and runs maintenance. In a rolling
     * upgrade a new worker can start before the migrations Job ran, and new code on the old schema
     * fails its statements (or writes what the old one reads differently). stop() ends the wait.
     */
    start() {
      if (state !== 'created') return;
      state = 'starting';
      starting = waitForCurrentSchema({
        pool,
        log,
        signal: schemaWait.signal,
        pollMs: options.schemaPollMs,
      }).then((current) => {
        if (current && state === 'starting') consume();
      });
    },
    async stop(): Promise<void> {
      if (state !== 'running' && state !== 'starting') return;
      state = 'draining';
      schemaWait.abort();
      await starting;
      runner.beginDrain();
      await consumer.pause();
      // Sweeps and maintenance are no work in flight: they end as the drain begins, so a draining
      // worker starts no VACUUM or retention batch while its runs finish (the other workers take
      // their turns; a sweep or job under way gets its close's few seconds, as before).
      const background = Promise.all([
        closeWithin('reaper', () => reaper.stop(), log),
        closeWithin('maintenance', async () => maintenance?.close(REDIS_CLOSE_TIMEOUT_MS / 2), log),
      ]);
      const drained = await runner.idle(options.shutdownGraceMs ?? 20_000);
      if (!drained) {
        log.warn({ running: runner.activeCount }, 'grace period over: handing running tasks back');
        await runner.stopAll('shutdown');
      }
      // Without Redis a graceful BullMQ close waits for a connection `end` that never comes
      // (BullMQ issue #4656): the consumer closes by force then (its runs are over already).
      const redisAway = redis.status !== 'ready';
      await Promise.all([background, closeWithin('task consumer', () => consumer.close(redisAway), log)]);
      await closeWithin('held-back dispatches', () => runner.releaseHeldBack(), log);
      await closeWithin('task queue', () => queue.close(), log);
      await hub.close();
      state = 'stopped';
    },
    async ready(): Promise<Record<string, boolean>> {
      const [{ postgres, migrations }, redisOk] = await Promise.all([
        databaseReadiness(pool),
        redisAnswers(redis),
      ]);
      return { postgres, migrations, redis: redisOk, running: state === 'running' };
    },
  };
}

export type WorkerRuntime = ReturnType<typeof createWorkerRuntime>;
