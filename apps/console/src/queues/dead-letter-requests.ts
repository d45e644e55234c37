import type { DeadLetterPage, DeliveryKey } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';
import { badRequest } from '../http/http-error.ts';
import { bodyString, isSlug, isUuid } from '../http/params.ts';

const DEAD_LETTER_PAGE = 50;

/** A page of a tenant's dead letters; a cursor this console did not issue is a 400. */
export async function listDeadLetters(
  services: Pick<ConsoleServices, 'outbox'>,
  tenantId: string,
  cursor: string | undefined,
): Promise<DeadLetterPage> {
  try {
    return await services.outbox.listDeadLetters({
      tenantId,
      limit: DEAD_LETTER_PAGE,
      ...(cursor ? { cursor } : {}),
    });
  } catch (err) {
    if (err instanceof RangeError) throw badRequest('cursor is not one this console issued');
    throw err;
  }
}

/** The delivery a replay request names (form fields or JSON: tenant, taskId, configId, seq). */
export function deliveryKeyOf(body: unknown): DeliveryKey {
  const tenantId = bodyString(body, 'tenant', 63);
  const taskId = bodyString(body, 'taskId', 36).toLowerCase();
  const configId = bodyString(body, 'configId', 256);
  const seq = Number(bodyString(body, 'seq', 10));
  if (!isSlug(tenantId) || !isUuid(taskId) || !Number.isInteger(seq) || seq < 1) {
    throw badRequest('tenant, taskId, configId and seq must name a delivery');
  }
  return { tenantId, taskId, configId, seq };
}
