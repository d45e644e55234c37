// Pusher entry point: validated config → process resources → pusher; drain on SIGTERM.
import { handleSignals, openProcessResources, startOpsServer } from '@switchyard/runtime';
import { loadPusherConfig, pusherSettings } from './config.ts';
import { createPusher } from './create-pusher.ts';

const config = loadPusherConfig(process.env);
const { log, metrics, pool, subscriber, keys, secrets, close } = await openProcessResources(
  'pusher',
  config,
  process.env,
);
const pusher = createPusher({
  pool,
  subscriber,
  keys,
  secrets,
  log,
  settings: pusherSettings(config),
  metrics,
});
const ops = await startOpsServer(config.PUSHER_OPS_PORT, {
  health: () => pusher.health(),
  ready: () => pusher.ready(),
  metrics: () => pusher.metrics(),
});
handleSignals(
  {
    async stop() {
      await pusher.stop();
      ops.close();
      await close();
    },
  },
  log,
);
await pusher.start();
