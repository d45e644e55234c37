import { Role, type JsonObject, type Message, type Part } from '@switchyard/protocol';
import type { MessageInput } from '../agent.ts';

/** What a test may send: plain text, parts, or a full client Message. */
export type HarnessMessage = string | Part[] | Message;

/** Sequential ids (`task-1`, `msg-2`, …): deterministic, so test failures read the same every run. */
export class IdSource {
  #counters = new Map<string, number>();

  next(prefix: string): string {
    const n = (this.#counters.get(prefix) ?? 0) + 1;
    this.#counters.set(prefix, n);
    return `${prefix}-${n}`;
  }
}

interface MessageIds {
  messageId: string;
  contextId: string;
  taskId: string;
}

/** A client (ROLE_USER) message carrying the task's ids, as the gateway stores it. */
export function toUserMessage(input: HarnessMessage, ids: MessageIds): Message {
  if (typeof input === 'string') return { ...ids, role: Role.USER, parts: [{ text: input }] };
  if (Array.isArray(input)) return { ...ids, role: Role.USER, parts: cloneJson(input) };
  return { ...cloneJson(input), contextId: ids.contextId, taskId: ids.taskId };
}

/** An agent message built from the author API's MessageInput; the platform fills ids and role. */
export function toAgentMessage(input: MessageInput, ids: MessageIds): Message {
  if (typeof input === 'string') return { ...ids, role: Role.AGENT, parts: [{ text: input }] };
  const message: Message = { ...ids, role: Role.AGENT, parts: cloneJson(input.parts) };
  if (input.metadata !== undefined) message.metadata = toJsonObject(input.metadata);
  return message;
}

/**
 * A JSON round trip, as storing in Postgres (jsonb) does: it catches agents that hand the platform
 * values that do not survive serialisation (Dates, Maps, functions) in unit tests already.
 */
export function cloneJson<T>(value: T): T {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('value is not JSON-serialisable');
  return JSON.parse(text) as T;
}

export function toJsonObject(value: Record<string, unknown>): JsonObject {
  const copy: unknown = JSON.parse(JSON.stringify(value));
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) {
    throw new TypeError('metadata must be a JSON object');
  }
  return copy as JsonObject;
}
