import { isA2AErrorOfKind } from '@switchyard/protocol';
import type { ConsoleServices } from '../console-services.ts';

export type CancelOutcome = 'canceled' | 'not-cancelable' | 'not-found';

/** Who the engine records as the canceller. */
export const CONSOLE_PRINCIPAL = 'switchyard-console';

/**
 * Cancels as a tenant admin through the engine (ARCHITECTURE.md §6): CANCELED by compare-and-set,
 * the cancel hint stops the running agent, a race with completion has one winner.
 */
export async function cancelTaskAsAdmin(
  services: Pick<ConsoleServices, 'tasks' | 'service' | 'log'>,
  tenantId: string,
  taskId: string,
): Promise<CancelOutcome> {
  const record = await services.tasks.getTaskRecord(tenantId, taskId);
  if (!record || record.visibility !== 'task') return 'not-found';
  try {
    await services.service.cancelTask(
      { tenantId, principal: CONSOLE_PRINCIPAL, admin: true },
      record.agentId,
      taskId,
    );
  } catch (err) {
    if (isA2AErrorOfKind(err, 'TaskNotCancelable')) return 'not-cancelable';
    if (isA2AErrorOfKind(err, 'TaskNotFound')) return 'not-found';
    throw err;
  }
  services.log.info({ tenantId, taskId, action: 'cancel' }, 'console: task canceled');
  return 'canceled';
}
