export { z } from 'zod';
export {
  ConfigError,
  parseEnv,
  intVar,
  msVar,
  MAX_TIMER_MS,
  MAX_SHUTDOWN_MS,
  NODE_ENVS,
  drainFitsDeadline,
  adminTokenProblem,
  boolVar,
  cidrListVar,
  listVar,
  trustProxyVar,
  urlVar,
  commonEnvSchema,
  developmentValueOf,
  type CommonConfig,
} from './env-config.ts';
export {
  handleSignals,
  shutdownDeadlineMs,
  SHUTDOWN_MARGIN_MS,
  type Lifecycle,
  type ShutdownOptions,
} from './process-lifecycle.ts';
export { loadConfigOrExit, type ConfigExit } from './config-exit.ts';
export { throttledErrors, ERROR_LOG_INTERVAL_MS, type ThrottledErrors } from './throttled-errors.ts';
export { handleProcessErrors, type ProcessErrorOptions } from './process-errors.ts';
export { closeWithin, REDIS_CLOSE_TIMEOUT_MS } from '@switchyard/queue';
export { migrationsProbe, postgresProbe, PROBE_TIMEOUT_MS } from './readiness-probes.ts';
export { opsHandler, serviceReadiness, startOpsServer, type OpsHandlers } from './ops-server.ts';
export { listenOrExit } from './listen-or-exit.ts';
export { openProcessResources, type ProcessResources } from './process-resources.ts';
