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
export { handleSignals, type Lifecycle } from './process-lifecycle.ts';
export { opsHandler, serviceReadiness, startOpsServer, type OpsHandlers } from './ops-server.ts';
export { openProcessResources, type ProcessResources } from './process-resources.ts';
