export { runRetention, type RetentionResult } from './run-retention.ts';
export { RETENTION_DEFAULTS, type RetentionOptions } from './retention-options.ts';
