import type { TaskService } from '@switchyard/engine';
import type { HintPublisher, RevocationChannel, SubscriptionHub } from '@switchyard/events';
import type { QueueKeys, TaskQueue } from '@switchyard/queue';
import type {
  PostgresAdminStore,
  PostgresConsoleStore,
  PostgresOutboxStore,
  PostgresTaskStore,
} from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { SessionSigner } from './auth/session-token.ts';
import type { ConsoleConfig } from './config.ts';
import type { ConsoleLinks } from './links.ts';
import type { StreamRegistry } from './live/sse-stream.ts';

/** What the console's routes stand on, built once by createConsole. */
export interface ConsoleServices {
  config: ConsoleConfig;
  log: Logger;
  pool: pg.Pool;
  redis: Redis;
  keys: QueueKeys;
  /** Task rows, the event log. */
  tasks: PostgresTaskStore;
  /** The console's own queries (lists, counts, history with times, chunks, lookups). */
  reads: PostgresConsoleStore;
  outbox: PostgresOutboxStore;
  admin: PostgresAdminStore;
  /** Cancel goes through the engine, like an A2A CancelTask by a tenant admin. */
  service: TaskService;
  queue: TaskQueue;
  hub: SubscriptionHub;
  hints: HintPublisher;
  signer: SessionSigner;
  links: ConsoleLinks;
  streams: StreamRegistry;
  /** Disabling a tenant is announced to every gateway (their credential caches). */
  revocations: Pick<RevocationChannel, 'announce' | 'start' | 'stop'>;
}
