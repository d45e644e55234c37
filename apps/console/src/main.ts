// Console entry point: validated config → process resources → createConsole → listen; drain on SIGTERM.
import {
  handleProcessErrors,
  handleSignals,
  listenOrExit,
  loadConfigOrExit,
  openProcessResources,
  shutdownDeadlineMs,
} from '@switchyard/runtime';
import { loadConsoleConfig } from './config.ts';
import { createConsole } from './create-console.ts';

const config = loadConfigOrExit('switchyard-console', () => loadConsoleConfig(process.env));
const { log, metrics, pool, redis, commands, subscriber, keys, secrets, close, flushTracing } =
  await openProcessResources('console', config, process.env);
handleProcessErrors(log, { beforeFatalExit: flushTracing });
const app = createConsole({ pool, redis, commands, subscriber, keys, secrets, log, config, metrics });
await listenOrExit(log, { CONSOLE_PORT: config.CONSOLE_PORT }, () => app.start(config.CONSOLE_PORT));
handleSignals(
  {
    async stop() {
      await app.stop();
      await close();
    },
  },
  log,
  { deadlineMs: shutdownDeadlineMs(config, config.SHUTDOWN_GRACE_MS), beforeForcedExit: flushTracing },
);
