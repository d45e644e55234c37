import { randomUUID } from 'node:crypto';
import type { MessageInput } from '@switchyard/agents';
import type { JsonObject, Message } from '@switchyard/protocol';

/** Turns an agent's text or parts into a full agent Message bound to the task's context. */
export function agentMessage(
  input: MessageInput,
  ids: { contextId: string; taskId?: string | undefined },
): Message {
  const body = typeof input === 'string' ? { parts: [{ text: input }] } : input;
  return {
    messageId: randomUUID(),
    role: 'ROLE_AGENT',
    contextId: ids.contextId,
    ...(ids.taskId ? { taskId: ids.taskId } : {}),
    parts: body.parts,
    ...('metadata' in body && body.metadata ? { metadata: body.metadata as JsonObject } : {}),
  };
}
