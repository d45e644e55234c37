// The ops console's queries (apps/console): one file per query, tenant-scoped, keyset-paged.
export type {
  CappedCount,
  ConsoleTaskFilter,
  ConsoleTaskPage,
  ConsoleTaskRow,
  ListConsoleTasksInput,
  PlanNode,
  StoredArtifactChunk,
  StoredMessage,
  TaskLocation,
  TenantDeadLetters,
  TenantQueued,
} from './console-types.ts';
export { buildListConsoleTasksQuery, listConsoleTasks } from './list-console-tasks.ts';
export { buildCountConsoleTasksQuery, countConsoleTasks, CONSOLE_COUNT_CAP } from './count-console-tasks.ts';
export { listContextTasks } from './list-context-tasks.ts';
export { listTaskMessages } from './list-task-messages.ts';
export { listArtifactChunks } from './list-artifact-chunks.ts';
export { listTaskDeliveries, TASK_DELIVERY_COUNT_CAP, type TaskDeliveries } from './list-task-deliveries.ts';
export { countDeadLettersByTenant } from './count-dead-letters.ts';
export { countQueuedByTenant } from './count-queued-by-tenant.ts';
export { findTaskTenants } from './find-task-tenants.ts';
export { pingDatabase } from './ping-database.ts';
export { explainQuery, planNodes } from './explain-query.ts';
export { PostgresConsoleStore } from './postgres-console-store.ts';
