import { randomUUID } from 'node:crypto';
import { Role, type JsonValue, type Message, type Part } from '@switchyard/protocol';

export interface UserMessageOptions {
  /** Continue this task (it must be INPUT_REQUIRED or AUTH_REQUIRED). */
  taskId?: string | undefined;
  contextId?: string | undefined;
  /** Default: a fresh UUID. Keep it when resending: the server answers a repeat with the first send's task. */
  messageId?: string | undefined;
  /** Extra parts after the text (e.g. a data part). */
  parts?: Part[] | undefined;
  metadata?: Message['metadata'];
  referenceTaskIds?: string[] | undefined;
}

/** A ROLE_USER message with a client-generated messageId, the idempotency key of a send (digest §2.2). */
export function userMessage(content: string | Part[], options: UserMessageOptions = {}): Message {
  const parts: Part[] = typeof content === 'string' ? [{ text: content }] : [...content];
  if (options.parts) parts.push(...options.parts);
  return {
    messageId: options.messageId ?? randomUUID(),
    role: Role.USER,
    parts,
    ...(options.taskId ? { taskId: options.taskId } : {}),
    ...(options.contextId ? { contextId: options.contextId } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
    ...(options.referenceTaskIds ? { referenceTaskIds: options.referenceTaskIds } : {}),
  };
}

/** A `data` part holding any JSON value. */
export function dataPart(data: JsonValue, mediaType = 'application/json'): Part {
  return { data, mediaType };
}

/** The text of some parts, joined by newlines; non-text parts are skipped. */
export function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).flatMap((p) => (p.text !== undefined ? [p.text] : [])).join('\n');
}
