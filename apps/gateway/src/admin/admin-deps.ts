import type { Redis } from 'ioredis';
import type { HintPublisher } from '@switchyard/events';
import type { QueueKeys } from '@switchyard/queue';
import type { UrlPolicy } from '@switchyard/engine';
import type { PostgresAdminStore, PostgresOutboxStore, SecretBox } from '@switchyard/store';

export interface AdminDeps {
  admin: PostgresAdminStore;
  outbox: PostgresOutboxStore;
  /** Publishes revocations on keys.authChannel. */
  redis: Redis;
  keys: QueueKeys;
  /** Wakes pushers after a replay. */
  hints: HintPublisher;
  bodyLimitBytes: number;
  /** Seals upstream agents' credentials. */
  secrets: SecretBox;
  /** SSRF rules for upstream agent URLs (the webhook rules). */
  urlPolicy: UrlPolicy;
}
