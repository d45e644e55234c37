// Gateway entry point: validated config → process resources → createGateway → listen; drain on SIGTERM.
import {
  handleProcessErrors,
  handleSignals,
  listenOrExit,
  loadConfigOrExit,
  openProcessResources,
  shutdownDeadlineMs,
} from '@switchyard/runtime';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';

const config = loadConfigOrExit('switchyard-gateway', () => loadGatewayConfig(process.env));
const resources = await openProcessResources('gateway', config, process.env);
const { log, close, flushTracing } = resources;
handleProcessErrors(log, { beforeFatalExit: flushTracing });
// The connections, pool, logger and metrics as opened; the gateway takes what GatewayDeps names.
const gateway = createGateway({ ...resources, config });
// Before start(): with Redis away, start() waits for the revocation channel (listening meanwhile),
// and a SIGTERM then must still drain.
handleSignals(
  {
    async stop() {
      await gateway.stop();
      await close();
    },
  },
  log,
  { deadlineMs: shutdownDeadlineMs(config, config.SHUTDOWN_GRACE_MS), beforeForcedExit: flushTracing },
);
await listenOrExit(log, { PORT: config.PORT, GATEWAY_OPS_PORT: config.GATEWAY_OPS_PORT }, () =>
  gateway.start(config.PORT),
);
