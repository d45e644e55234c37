export {
  DEFAULT_MIGRATIONS_DIR,
  loadMigrations,
  migrationsCurrent,
  databaseReadiness,
  runMigrations,
  type Migration,
  type MigrationOptions,
  type MigrationResult,
} from './migrations/run-migrations.ts';
export { ensureDatabase } from './migrations/ensure-database.ts';
export { waitForCurrentSchema, type SchemaWaitOptions } from './migrations/wait-for-current-schema.ts';

export { createDb, createPool, type Db, type DbOptions } from './db.ts';
export { StatementTimeoutError } from './statement-timeout.ts';
export { isStoreGone, isStoreUnavailable } from './store-unavailable.ts';
export type * from './database.ts';
export { createSecretBox, type SecretBox } from './secret-box.ts';
export { resealSecrets, type ResealReport } from './secrets/reseal-secrets.ts';
export {
  ConflictError,
  InvalidPageTokenError,
  isConflict,
  isInvalidPageToken,
  isPushConfigLimit,
  isRedactedSecret,
  PushConfigLimitError,
  RedactedSecretError,
} from './errors.ts';

export type * from './task-store.ts';
export type { RunInputs } from './tasks/load-run-inputs.ts';
export { PostgresTaskStore, type PostgresTaskStoreOptions } from './postgres-task-store.ts';
export { composeTaskView, type TaskViewParts } from './tasks/compose-task-view.ts';
export { artifactChunkBytes, composeArtifacts } from './tasks/compose-artifacts.ts';
export { jsonBytes } from './json-bytes.ts';
export { DEFAULT_EVENT_LIMIT } from './tasks/read-events.ts';
export { DEFAULT_MAX_PAGE_BYTES } from './tasks/page-budget.ts';
export { changesStatus, withStatusTime } from './tasks/status-time.ts';

export {
  PostgresPushConfigStore,
  type PostgresPushConfigStoreOptions,
} from './postgres-push-config-store.ts';
export { REDACTED } from './push-configs/push-config-view.ts';
export { placeholderSecretField } from './push-configs/add-push-config.ts';
export { DEFAULT_PUSH_CONFIG_PAGE_SIZE } from './push-configs/list-push-configs.ts';
export { loadPushConfigSecrets, type PushConfigSecrets } from './push-configs/load-push-config-secrets.ts';

export * from './admin/index.ts';
export * from './outbox/index.ts';
export * from './retention/index.ts';
export * from './console/index.ts';
export { upkeepTables, type UpkeepResult } from './upkeep/upkeep-tables.ts';
