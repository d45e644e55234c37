export { z } from 'zod';
export {
  ConfigError,
  parseEnv,
  intVar,
  boolVar,
  cidrListVar,
  listVar,
  urlVar,
  commonEnvSchema,
  type CommonConfig,
} from './env-config.ts';
export {
  handleSignals,
  shutdownDeadlineMs,
  SHUTDOWN_MARGIN_MS,
  type Lifecycle,
  type ShutdownOptions,
} from './process-lifecycle.ts';
export { handleProcessErrors, type ProcessErrorOptions } from './process-errors.ts';
export { closeWithin, REDIS_CLOSE_TIMEOUT_MS } from '@switchyard/queue';
export { migrationsProbe, postgresProbe, PROBE_TIMEOUT_MS } from './readiness-probes.ts';
export { opsHandler, serviceReadiness, startOpsServer, type OpsHandlers } from './ops-server.ts';
export { openProcessResources, type ProcessResources } from './process-resources.ts';
