import type { Dispatch } from '@switchyard/queue';
import type { TaskRecord } from '@switchyard/store';
import type { EngineConfig } from './engine-config.ts';

/**
 * How long past its expiry the lease a canceled task kept is left to the run that held it before
 * it counts as never released (take-cancel-notice.ts). That run hears the cancel by its hint, or at
 * the latest when its next renewal, due before the lease runs out, is refused; it gives its agent
 * stopGraceMs to stop, then releases the lease. One more lease period covers that release's write:
 * a worker that cannot write for a whole lease is taken for dead everywhere else too.
 */
export function unheardAfterMs(config: Pick<EngineConfig, 'leaseMs' | 'stopGraceMs'>): number {
  return config.stopGraceMs + config.leaseMs;
}

/**
 * The dispatch that looks at a canceled task's kept lease once it would count as never released:
 * its claim is refused (the task is CANCELED), and the runner tells the agent instead if the run
 * never released the lease (runner/cancel-notices.ts). Its job id carries the due time, so it
 * never merges with a job of the task's run; `notBefore` (epoch ms) puts off a check come early.
 */
export function unheardCancelCheck(
  record: Pick<TaskRecord, 'tenantId' | 'id' | 'version' | 'attempts' | 'leaseExpiresAt'>,
  config: Pick<EngineConfig, 'leaseMs' | 'stopGraceMs'>,
  notBefore = 0,
): Dispatch {
  const expiresAt = record.leaseExpiresAt?.getTime() ?? Date.now();
  return {
    tenantId: record.tenantId,
    taskId: record.id,
    version: record.version,
    attempts: record.attempts,
    runAfter: new Date(Math.max(expiresAt + unheardAfterMs(config), notBefore)),
  };
}
