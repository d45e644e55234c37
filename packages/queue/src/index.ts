export { createQueueKeys, type QueueKeys } from './queue-keys.ts';
export {
  JOB_NAMES,
  runTaskJobId,
  type JobCatalog,
  type JobName,
  type RetentionJob,
  type RunTaskJob,
  type TaskCanceledJob,
} from './job-catalog.ts';
export { TaskQueue, type BacklogSlot, type Dispatch } from './task-queue.ts';
export { TaskConsumer, type TaskConsumerOptions } from './task-consumer.ts';
export { TenantRunCap, type HeldSlot, type TenantRunCapOptions } from './tenant-run-cap.ts';
export { readRunCapUsage, type RunCapUsage } from './run-cap-usage.ts';
export {
  MaintenanceScheduler,
  type MaintenanceJob,
  type MaintenanceOptions,
} from './maintenance-scheduler.ts';
export {
  COMMANDS_CONNECTION_OPTIONS,
  guardCommands,
  isRedisAway,
  redisAnswers,
} from './commands-connection.ts';
export { resultWithin } from './result-within.ts';
export { maxmemoryPolicyOf, watchEvictionPolicy } from './eviction-policy.ts';
export { closeWithin, REDIS_CLOSE_TIMEOUT_MS } from './close-within.ts';
