// Gateway entry point: validated config → process resources → createGateway → listen; drain on SIGTERM.
import { handleSignals, openProcessResources } from '@switchyard/runtime';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';

const config = loadGatewayConfig(process.env);
const resources = await openProcessResources('gateway', config, process.env);
const { log, close } = resources;
// The connections, pool, logger and metrics as opened; the gateway takes what GatewayDeps names.
const gateway = createGateway({ ...resources, config });
await gateway.start(config.PORT);
handleSignals(
  {
    async stop() {
      await gateway.stop();
      await close();
    },
  },
  log,
);
