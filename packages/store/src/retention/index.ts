export {
  runRetention,
  RetentionError,
  type RetentionResult,
  type RetentionStepFailure,
} from './run-retention.ts';
export { RETENTION_DEFAULTS, type RetentionOptions } from './retention-options.ts';
