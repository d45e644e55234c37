// Gateway entry point: validated config → process resources → createGateway → listen; drain on SIGTERM.
import { handleSignals, openProcessResources } from '@switchyard/runtime';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';

const config = loadGatewayConfig(process.env);
const { log, metrics, pool, redis, commands, subscriber, keys, secrets, close } = await openProcessResources(
  'gateway',
  config,
  process.env,
);
const gateway = createGateway({
  pool,
  redis,
  commands,
  subscriber,
  keys,
  secrets,
  log,
  config,
  metrics,
});
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
