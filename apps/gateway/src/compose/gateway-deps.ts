import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { EngineConfig } from '@switchyard/engine';
import type { QueueKeys } from '@switchyard/queue';
import type { SecretBox } from '@switchyard/store';
import type { Logger, Metrics } from '@switchyard/telemetry';
import type { GatewayConfig } from '../config.ts';

/** Everything the composition root hands the gateway (STYLE.md rule 6: one options object). */
export interface GatewayDeps {
  pool: pg.Pool;
  /** Commands: queue, revocation publishes, and what `commands` does not take. */
  redis: Redis;
  /** Hint publishes, the fair-order scripts and rate limits, auto-pipelined (ProcessResources.commands). */
  commands?: Redis;
  /** A dedicated pub/sub connection; the gateway owns it from here and closes it in stop(). */
  subscriber: Redis;
  keys: QueueKeys;
  secrets: SecretBox;
  log: Logger;
  config: GatewayConfig;
  /** Engine settings beyond what the config sets (tests shorten poll intervals). */
  engine?: Partial<EngineConfig>;
  /** Prometheus metrics of this process; /metrics serves them. A private registry when absent. */
  metrics?: Metrics;
}
