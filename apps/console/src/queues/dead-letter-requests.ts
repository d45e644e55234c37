import type { DeadLetterPage, DeliveryKey } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';
import { badRequest } from '../http/http-error.ts';
import { bodyString, isSlug, isUuid } from '../http/params.ts';

const DEAD_LETTER_PAGE = 50;

/**
 * Longest dead-letter cursor taken: base64url JSON holding a config id of up to 256 characters of
 * any kind (escaped in the JSON, then a third longer) runs to about 2,100, as on the admin API.
 */
export const DEAD_LETTER_CURSOR_MAX = 4096;

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
    // The store's decoder refuses what is not a cursor (RangeError); a forged one that decodes (a
    // month 13, a NUL in the config id, a seq past integer) fails in Postgres as a data exception
    // (SQLSTATE class 22), as on the admin API. Either way the cursor is not one we issued.
    if (cursor && (err instanceof RangeError || isDataException(err)))
      throw badRequest('cursor is not one this console issued');
    throw err;
  }
}

/** Postgres could not take a value as its column's type (invalid text, a date out of range, …). */
function isDataException(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('22');
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
