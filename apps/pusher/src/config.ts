import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { boolVar, cidrListVar, commonEnvSchema, intVar, parseEnv, z } from '@switchyard/runtime';
import type { PusherSettings } from './create-pusher.ts';

const pusherEnvSchema = commonEnvSchema
  .extend({
    /** Deliveries sent at once by this process. Default 16. */
    PUSHER_CONCURRENCY: intVar(16, 1, 1000),
    /** Whole-attempt timeout per POST (connect, headers, body), in ms. Default 10000 (spec: 10–30 s). */
    PUSH_TIMEOUT_MS: intVar(10_000, 100, 120_000),
    /** Attempts per delivery (the first send included) before it is dead-lettered. Default 8. */
    PUSH_MAX_ATTEMPTS: intVar(8, 1, 100),
    /** Backoff ceiling of the first retry, in ms; doubles per attempt, full jitter. Default 1000. */
    PUSH_RETRY_BASE_MS: intVar(1000, 1),
    /** Largest backoff ceiling, in ms. Default 300000 (5 min). */
    PUSH_RETRY_MAX_MS: intVar(300_000, 1),
    /** How long a claim holds before another pusher may retry it, in ms. Must exceed PUSH_TIMEOUT_MS. Default 60000. */
    PUSH_LOCK_MS: intVar(60_000, 100),
    /** Fallback poll when no wake-up arrives on the Redis push channel, in ms. Default 1000. */
    PUSH_POLL_MS: intVar(1000, 10, 60_000),
    /** Non-public ranges webhooks may still reach (comma list of CIDRs). Default none. */
    WEBHOOK_ALLOW_CIDRS: cidrListVar(),
    /** Allow plain http:// webhook URLs. Default true. */
    WEBHOOK_ALLOW_HTTP: boolVar(true),
    /** Port of /healthz, /readyz and /metrics (0 picks a free one). Default 9092. */
    PUSHER_OPS_PORT: intVar(9092, 0, 65535),
    /** Claim owner id; unique per process. Default host:pid:random. */
    PUSHER_ID: z
      .string()
      .min(1)
      .default(() => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`),
  })
  // A claim that lapses while its POST is still running lets a second pusher send the same
  // delivery in parallel, which breaks per-task order; the lock must outlive the timeout.
  .refine((c) => c.PUSH_LOCK_MS > c.PUSH_TIMEOUT_MS, {
    path: ['PUSH_LOCK_MS'],
    message: 'must be greater than PUSH_TIMEOUT_MS',
  })
  .refine((c) => c.PUSH_RETRY_MAX_MS >= c.PUSH_RETRY_BASE_MS, {
    path: ['PUSH_RETRY_MAX_MS'],
    message: 'must be at least PUSH_RETRY_BASE_MS',
  });

export type PusherConfig = ReturnType<typeof loadPusherConfig>;

/** Parses and freezes the pusher's environment; throws ConfigError naming every bad variable. */
export function loadPusherConfig(env: NodeJS.ProcessEnv) {
  return parseEnv(pusherEnvSchema, env);
}

/** The createPusher settings a parsed environment stands for. */
export function pusherSettings(config: PusherConfig): PusherSettings {
  return {
    workerId: config.PUSHER_ID,
    concurrency: config.PUSHER_CONCURRENCY,
    timeoutMs: config.PUSH_TIMEOUT_MS,
    lockMs: config.PUSH_LOCK_MS,
    pollMs: config.PUSH_POLL_MS,
    retry: {
      maxAttempts: config.PUSH_MAX_ATTEMPTS,
      baseMs: config.PUSH_RETRY_BASE_MS,
      maxMs: config.PUSH_RETRY_MAX_MS,
    },
    policy: { allowCidrs: config.WEBHOOK_ALLOW_CIDRS, allowHttp: config.WEBHOOK_ALLOW_HTTP },
  };
}
