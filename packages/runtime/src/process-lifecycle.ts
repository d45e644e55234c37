import type { Logger } from '@switchyard/telemetry';

export interface Lifecycle {
  /** Stops taking work and drains; resolves when the process may exit. */
  stop(): Promise<void>;
}

/**
 * SIGTERM/SIGINT drain the process (stop taking work, finish or hand back what runs, close
 * pools); a second signal forces an immediate exit (STYLE.md rule 10).
 */
export function handleSignals(app: Lifecycle, log: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: forcing exit');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'draining');
    app.stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
