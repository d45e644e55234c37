import { isDeepStrictEqual } from 'node:util';
import { invalidParams, type A2AError, type Message } from '@switchyard/protocol';
import type { NewPushConfig, PushConfigStore } from '@switchyard/store';

/**
 * A send whose messageId was seen before is answered as a retry of the first (ARCHITECTURE.md §3
 * rule 5) only when it asks for the same thing. A client that reuses an id for another message, or
 * adds a webhook the first send did not register, would otherwise get a success for work that
 * never happens (the webhook would never be called), so it is refused instead and nothing changes.
 * Retries may still differ in how they want the answer (blocking, historyLength), and may leave out
 * the contextId the first send let the server choose.
 */

/** The parts of a message that say what is asked, as stored (JSON, so key order does not count). */
function essence(message: Message): unknown {
  const { role, parts, metadata, extensions, referenceTaskIds } = message;
  return JSON.parse(JSON.stringify({ role, parts, metadata, extensions, referenceTaskIds })) as unknown;
}

export function sameMessage(first: Message, retry: Message): boolean {
  if (retry.contextId !== undefined && retry.contextId !== first.contextId) return false;
  return isDeepStrictEqual(essence(first), essence(retry));
}

/** Whether the task already has the webhook the retry names (same url, and id when one is given). */
export async function hasPushConfig(
  pushConfigs: PushConfigStore,
  tenantId: string,
  taskId: string,
  wanted: NewPushConfig,
): Promise<boolean> {
  let pageToken: string | undefined;
  do {
    const page = await pushConfigs.listPushConfigs(tenantId, taskId, {
      pageSize: 100,
      ...(pageToken ? { pageToken } : {}),
    });
    if (page.configs.some((c) => c.url === wanted.url && (wanted.id === undefined || c.id === wanted.id)))
      return true;
    pageToken = page.nextPageToken || undefined;
  } while (pageToken);
  return false;
}

export function messageIdReused(why: string): A2AError {
  return invalidParams(`message.messageId was already used by ${why}; send a new messageId`, [
    { field: 'message.messageId', description: `already used by ${why}` },
  ]);
}
