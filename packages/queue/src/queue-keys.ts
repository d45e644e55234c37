/**
 * Every Redis key and channel name Switchyard uses is built here (BullMQ's queue-keys.ts pattern),
 * so producers and consumers cannot spell a name differently.
 *
 * The prefix is wrapped in a hash tag (`{sy}`) so that in Redis Cluster each queue's keys, and the
 * fairness counters, live in one slot (BullMQ's Lua scripts touch several keys at once).
 */
export interface QueueKeys {
  /** BullMQ `prefix` option. */
  readonly bullPrefix: string;
  /** The task dispatch queue's name. */
  readonly taskQueue: string;
  /** Maintenance jobs (retention). */
  readonly maintenanceQueue: string;
  /** Per-tenant count of queued-but-not-started dispatches (fair priority). */
  tenantBacklog(tenantId: string): string;
  /** Pub/sub channel carrying "the task's log grew" hints. */
  taskChannel(tenantId: string, taskId: string): string;
  /** Pub/sub channel waking the pusher when deliveries are due. */
  readonly pushChannel: string;
  /** Pub/sub channel telling every gateway a credential was revoked. */
  readonly authChannel: string;
  /** Rate-limit buckets. */
  rateLimit(kind: string): string;
  /** Whose turn it is to sweep for lost work (one reaper sweep per interval, cluster-wide). */
  readonly reaperTurn: string;
}

export function createQueueKeys(prefix = 'sy'): QueueKeys {
  if (!/^[a-zA-Z0-9_-]+$/.test(prefix)) throw new Error(`invalid Redis key prefix: ${prefix}`);
  const tag = `{${prefix}}`;
  return {
    bullPrefix: tag,
    taskQueue: 'tasks',
    maintenanceQueue: 'maintenance',
    tenantBacklog: (tenantId) => `${tag}:backlog:${tenantId}`,
    taskChannel: (tenantId, taskId) => `${tag}:task:${tenantId}:${taskId}`,
    pushChannel: `${tag}:push`,
    authChannel: `${tag}:auth`,
    rateLimit: (kind) => `${tag}:rl:${kind}`,
    reaperTurn: `${tag}:reaper-turn`,
  };
}
