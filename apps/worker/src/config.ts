import {
  boolVar,
  cidrListVar,
  commonEnvSchema,
  drainFitsDeadline,
  intVar,
  MAX_SHUTDOWN_MS,
  msVar,
  parseEnv,
  z,
} from '@switchyard/runtime';
import { DEFAULT_ENGINE_CONFIG } from '@switchyard/engine';

/**
 * Ceiling of the retention TTLs, ten years. They are ages compared with timestamps, not timers,
 * so they may pass MAX_TIMER_MS (the 30-day defaults do); `now - ttl` must still be a date.
 */
const MAX_TTL_MS = 10 * 365 * 86_400_000;

const workerVariables = commonEnvSchema.extend({
  /** Agent runs at once in this process. */
  WORKER_CONCURRENCY: intVar(8, 1, 1000),
  /**
   * Runs of one tenant at once across all workers (0: no cap), for tenants without a cap of their
   * own (admin API `maxRunning`). A job taken past it waits, parked, until one of its tenant's runs
   * ends, so one tenant's flood of long runs cannot hold every worker slot. Give every worker the
   * same value.
   */
  TENANT_MAX_RUNNING: intVar(0, 0, 1_000_000),
  /**
   * Lease length in ms; renewed every third. A dead worker's task runs again within ~lease + reaper
   * interval. At most a day: a cancel nobody heard is re-sent after it plus the stop grace.
   */
  LEASE_MS: msVar(DEFAULT_ENGINE_CONFIG.leaseMs, 500, 86_400_000),
  /** Runs per task (errors and lapsed leases count) before it fails. */
  MAX_ATTEMPTS: intVar(DEFAULT_ENGINE_CONFIG.maxAttempts, 1, 100),
  /**
   * Backoff ceiling of a failed run's first retry, in ms: it waits between half of it and all of
   * it, and the ceiling doubles per attempt up to RETRY_MAX_MS.
   */
  RETRY_BASE_MS: msVar(DEFAULT_ENGINE_CONFIG.retryBaseMs, 10),
  /** Largest backoff ceiling, in ms. */
  RETRY_MAX_MS: msVar(DEFAULT_ENGINE_CONFIG.retryMaxMs, 10),
  /**
   * How often each worker's reaper re-dispatches lapsed leases and unclaimed tasks, in ms. At most
   * an hour: the jitter waits up to 1.25 times it.
   */
  REAPER_INTERVAL_MS: msVar(DEFAULT_ENGINE_CONFIG.reaperIntervalMs, 100, 3_600_000),
  /** An unclaimed runnable task older than this is re-enqueued by the reaper. */
  DISPATCH_GRACE_MS: msVar(DEFAULT_ENGINE_CONFIG.dispatchGraceMs, 100),
  /** One agent run is abandoned (and counted as a failed attempt) after this long; 0 = no limit. */
  RUN_TIMEOUT_MS: msVar(DEFAULT_ENGINE_CONFIG.runTimeoutMs, 0),
  /**
   * Most bytes of artifact chunks one task may hold (every stored chunk counts, one that replaces
   * its artifact too): an agent whose chunk would pass it fails its task with a status message
   * naming the limit. Default 16 MiB; from 1 KiB to 1 GiB.
   */
  TASK_MAX_ARTIFACT_BYTES: intVar(DEFAULT_ENGINE_CONFIG.taskMaxArtifactBytes, 1024, 1024 ** 3),
  /**
   * On SIGTERM, running agents get this long to finish before their tasks are handed back. At most
   * an hour, and less than SHUTDOWN_DEADLINE_MS when that is set.
   */
  SHUTDOWN_GRACE_MS: msVar(20_000, 0, MAX_SHUTDOWN_MS),
  /** Port of /healthz, /readyz and /metrics. */
  WORKER_OPS_PORT: intVar(9091, 0, 65535),
  /** Retention runs this often (once per interval across all workers). Unit: ms. */
  RETENTION_INTERVAL_MS: msVar(3_600_000, 1000),
  /**
   * How often the tables' statistics are checked and refreshed where stale (and the tables
   * vacuumed if autovacuum is off), once per interval across all workers; 0 turns it off. The hot
   * statements' plans depend on those statistics (README, "Postgres upkeep"). Unit: ms.
   */
  TABLE_UPKEEP_INTERVAL_MS: msVar(15_000, 0).refine(
    (v) => v === 0 || v >= 1000,
    'must be 0 (off) or at least 1000',
  ),
  /** Terminal tasks are kept this long after their last update. Default 30 days. */
  TERMINAL_TASK_TTL_MS: intVar(30 * 86_400_000, 1000, MAX_TTL_MS),
  /** Event logs of terminal tasks are kept this long (Last-Event-ID resume window). Default 24 h. */
  EVENT_TTL_MS: intVar(86_400_000, 1000, MAX_TTL_MS),
  /** messageId idempotency horizon (retry window). Default 24 h. */
  IDEMPOTENCY_TTL_MS: intVar(86_400_000, 1000, MAX_TTL_MS),
  /** Delivered push notifications are kept this long. Default 7 days. */
  DELIVERED_PUSH_TTL_MS: intVar(7 * 86_400_000, 1000, MAX_TTL_MS),
  /** Agents' per-context memory is kept this long after its last write. Default 30 days. */
  CONTEXT_MEMORY_TTL_MS: intVar(30 * 86_400_000, 1000, MAX_TTL_MS),
  /**
   * Upstream (a2a-upstream) agents obey the webhook SSRF rules: only public addresses, plus these
   * CIDRs. The same setting as the gateway's and the pusher's.
   */
  WEBHOOK_ALLOW_CIDRS: cidrListVar(),
  /** Allow plain http:// upstream agents (https is always allowed). */
  WEBHOOK_ALLOW_HTTP: boolVar(true),
  /** Limit of one unary request to an upstream agent, in ms. */
  UPSTREAM_TIMEOUT_MS: msVar(30_000, 100, 600_000),
  /** Unique lease owner id; defaults to host:pid:random. */
  WORKER_ID: z.string().min(1).optional(),
});

/** Exported for the tests that walk every setting (the timer bounds). */
export const workerEnvSchema = workerVariables
  // A ceiling below the base would make every retry wait about RETRY_MAX_MS from the first one
  // on: the backoff would never grow. A misreading of the two settings, so refused at start.
  .refine((c) => c.RETRY_MAX_MS >= c.RETRY_BASE_MS, {
    path: ['RETRY_MAX_MS'],
    message: 'must be at least RETRY_BASE_MS',
  })
  // Retention refuses these (a messageId outliving its task would answer a resend with a task that
  // is gone), but only when it runs, as a failed job each time; refuse them at start instead.
  .refine((c) => c.IDEMPOTENCY_TTL_MS <= c.TERMINAL_TASK_TTL_MS, {
    path: ['IDEMPOTENCY_TTL_MS'],
    message: 'must not exceed TERMINAL_TASK_TTL_MS',
  })
  // The drain is the grace for runs to finish plus the stop grace of those told to stop, before
  // their tasks are handed back (main.ts): a deadline inside that cuts the hand-back off.
  .refine((c) => drainFitsDeadline(c, c.SHUTDOWN_GRACE_MS + DEFAULT_ENGINE_CONFIG.stopGraceMs), {
    path: ['SHUTDOWN_DEADLINE_MS'],
    message: `must be greater than SHUTDOWN_GRACE_MS + ${DEFAULT_ENGINE_CONFIG.stopGraceMs} (the agents' stop grace)`,
  });

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

export function loadWorkerConfig(env: NodeJS.ProcessEnv) {
  return parseEnv(workerEnvSchema, env);
}
