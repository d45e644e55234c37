// Pusher entry point: validated config → process resources → pusher; drain on SIGTERM.
import {
  handleProcessErrors,
  handleSignals,
  listenOrExit,
  loadConfigOrExit,
  openProcessResources,
  shutdownDeadlineMs,
  startOpsServer,
} from '@switchyard/runtime';
import { loadPusherConfig, pusherSettings } from './config.ts';
import { createPusher, PUSH_DRAIN_EXTRA_MS } from './create-pusher.ts';

const config = loadConfigOrExit('switchyard-pusher', () => loadPusherConfig(process.env));
const { log, metrics, pool, subscriber, keys, secrets, close, flushTracing } = await openProcessResources(
  'pusher',
  config,
  process.env,
);
handleProcessErrors(log, { beforeFatalExit: flushTracing });
const pusher = createPusher({
  pool,
  subscriber,
  keys,
  secrets,
  log,
  settings: pusherSettings(config),
  metrics,
});
const ops = await listenOrExit(log, { PUSHER_OPS_PORT: config.PUSHER_OPS_PORT }, () =>
  startOpsServer(config.PUSHER_OPS_PORT, {
    health: () => pusher.health(),
    ready: () => pusher.ready(),
    // Reported, not required: the pusher delivers by polling Postgres, and Redis's wake-ups only
    // speed it up. Requiring it would stall every rollout through a Redis outage.
    advisory: ['redis'],
    metrics: () => pusher.metrics(),
  }),
);
handleSignals(
  {
    async stop() {
      await pusher.stop();
      ops.close();
      await close();
    },
  },
  log,
  // The drain's grace is the pusher's default: PUSH_TIMEOUT_MS + 5 s for in-flight sends.
  {
    deadlineMs: shutdownDeadlineMs(config, config.PUSH_TIMEOUT_MS + PUSH_DRAIN_EXTRA_MS),
    beforeForcedExit: flushTracing,
  },
);
// Waits until the schema is current, then claims; resolves once wake-ups are subscribed.
await pusher.start();
