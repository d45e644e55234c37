import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@switchyard/telemetry';
import type { WakeSignal } from '@switchyard/events';

export interface ClaimLoopOptions {
  /** Claims and starts sending one batch; `full` when it took every free slot. */
  claim(): Promise<{ full: boolean }>;
  isRunning(): boolean;
  wake: WakeSignal;
  /** Fallback poll, in ms. */
  pollMs: number;
  /** Ends a backoff sleep early on stop. */
  signal: AbortSignal;
  log: Logger;
}

/** Longest pause between claim attempts while the claim keeps failing. */
const MAX_ERROR_BACKOFF_MS = 30_000;

/**
 * Claims while running. A full batch means more may be due right now, so it claims again at once;
 * otherwise it waits for a wake-up (hint, finished send, scheduled retry) or the poll interval.
 */
export async function runClaimLoop(options: ClaimLoopOptions): Promise<void> {
  const { wake, pollMs, signal, log } = options;
  let failures = 0;
  while (options.isRunning()) {
    let full: boolean;
    try {
      ({ full } = await options.claim());
      failures = 0;
    } catch (err) {
      // Postgres is down or the claim is broken: say so every time, back off, keep trying.
      failures += 1;
      log.error({ err, failures }, 'claiming push deliveries failed');
      await sleep(Math.min(pollMs * 2 ** failures, MAX_ERROR_BACKOFF_MS), undefined, { signal }).catch(
        () => {},
      );
      continue;
    }
    if (!full) await wake.wait(pollMs);
  }
}
