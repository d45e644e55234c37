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
  /** A tenant's place in the fair order of dispatches (TaskQueue: epoch, level, used). */
  tenantFairPlace(tenantId: string): string;
  /** The fair order's current level while nothing waits (TaskQueue). */
  readonly fairLevelFloor: string;
  /** The fair order's epoch: a new one starts every tenant again from level 1 (TaskQueue). */
  readonly fairEpoch: string;
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
  /** The run slots a tenant's runs hold across the fleet (TenantRunCap). */
  tenantRunSlots(tenantId: string): string;
  /** A tenant's jobs parked until one of its slots frees (TenantRunCap). */
  tenantParkedRuns(tenantId: string): string;
}

export function createQueueKeys(prefix = 'sy'): QueueKeys {
  if (!/^[a-zA-Z0-9_-]+$/.test(prefix)) throw new Error(`invalid Redis key prefix: ${prefix}`);
  const tag = `{${prefix}}`;
  return {
    bullPrefix: tag,
    taskQueue: 'tasks',
    maintenanceQueue: 'maintenance',
    tenantFairPlace: (tenantId) => `${tag}:fair:${tenantId}`,
    fairLevelFloor: `${tag}:fair-floor`,
    fairEpoch: `${tag}:fair-epoch`,
    taskChannel: (tenantId, taskId) => `${tag}:task:${tenantId}:${taskId}`,
    pushChannel: `${tag}:push`,
    authChannel: `${tag}:auth`,
    rateLimit: (kind) => `${tag}:rl:${kind}`,
    reaperTurn: `${tag}:reaper-turn`,
    tenantRunSlots: (tenantId) => `${tag}:run-slots:${tenantId}`,
    tenantParkedRuns: (tenantId) => `${tag}:parked-runs:${tenantId}`,
  };
}
