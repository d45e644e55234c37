import type { Logger } from '@switchyard/telemetry';
import { PARKED_RELEASE_AFTER_MS } from './worker-runtime.ts';

/** What can bring a tenant's parked runs back (TaskQueue.releaseParked). */
export interface ParkedRuns {
  releaseParked(tenantId: string, afterMs: number): Promise<number>;
}

/**
 * Brings a tenant's runs parked under its old run cap back once the workers know the new one
 * (PARKED_RELEASE_AFTER_MS), rather than by their own delays (10 s to 5 min). Advisory, like the
 * cap itself: when Redis fails they still come back by those delays, and the cap stays saved, so
 * a failure is logged and counted as none released rather than thrown.
 */
export async function releaseParkedRuns(parked: ParkedRuns, tenantId: string, log: Logger): Promise<number> {
  try {
    const released = await parked.releaseParked(tenantId, PARKED_RELEASE_AFTER_MS);
    if (released > 0) log.info({ tenantId, released }, 'parked runs released after a cap change');
    return released;
  } catch (err) {
    log.warn({ err, tenantId }, 'could not release parked runs; they return by their delays');
    return 0;
  }
}
