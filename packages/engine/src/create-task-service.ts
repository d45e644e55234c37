import { HintPublisher, SubscriptionHub, VersionSweep } from '@switchyard/events';
import { TaskQueue, type QueueKeys } from '@switchyard/queue';
import {
  createDb,
  PostgresAdminStore,
  PostgresPushConfigStore,
  PostgresTaskStore,
  type SecretBox,
} from '@switchyard/store';
import type { Logger, Metrics } from '@switchyard/telemetry';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { CachedAgentDirectory } from './cached-agent-directory.ts';
import { engineConfig, type EngineConfig } from './engine-config.ts';
import type { UrlPolicy } from './push/url-policy.ts';
import { TaskService } from './service/task-service.ts';
import { TaskWriter } from './task-writer.ts';

export interface TaskServiceOptions {
  pool: pg.Pool;
  /** Commands: enqueue and publish. */
  redis: Redis;
  /** Hint publishes and the fair-order scripts, when not on `redis` (ProcessResources.commands). */
  commands?: Redis;
  /** A dedicated connection for the process's one pub/sub subscription hub. */
  subscriber: Redis;
  keys: QueueKeys;
  secrets: SecretBox;
  log: Logger;
  engine?: Partial<EngineConfig>;
  urlPolicy: UrlPolicy;
  /** Prometheus metrics of this process (tasks created/finished). */
  metrics?: Metrics;
}

/**
 * Builds the task service and what it stands on, for a process that serves A2A calls (the gateway,
 * the benchmark, tests). Closing it closes the queue producer and the subscription hub, not the
 * connections it was given.
 */
export function createTaskService(options: TaskServiceOptions) {
  const { pool, redis, subscriber, keys, secrets, log } = options;
  const commands = options.commands ?? redis;
  const db = createDb(pool);
  const store = new PostgresTaskStore({ db, secrets });
  const admin = new PostgresAdminStore({ db, secrets });
  const pushConfigs = new PostgresPushConfigStore({ db, secrets });
  const queue = new TaskQueue({ connection: redis, counters: commands, keys, log });
  const hub = new SubscriptionHub({ subscriber, keys });
  const config = engineConfig(options.engine);
  const sweep = new VersionSweep({
    readVersions: (taskKeys) => store.readVersions(taskKeys),
    intervalMs: config.pollIntervalMs * 2,
    onError: (err) => log.warn({ err }, 'stream version sweep failed; retrying at the next interval'),
  });
  const service = new TaskService({
    store,
    pushConfigs,
    writer: new TaskWriter({
      store,
      hints: new HintPublisher({ redis: commands, keys }),
      log,
      ...(options.metrics ? { metrics: options.metrics.tasks } : {}),
    }),
    dispatcher: queue,
    hub,
    sweep,
    agents: new CachedAgentDirectory({ load: (t, a) => admin.getAgent(t, a) }),
    config,
    urlPolicy: options.urlPolicy,
    log,
  });
  return {
    service,
    store,
    admin,
    pushConfigs,
    queue,
    hub,
    db,
    config,
    async close(): Promise<void> {
      sweep.close();
      await queue.close();
      await hub.close();
    },
  };
}

export type TaskServiceBundle = ReturnType<typeof createTaskService>;
