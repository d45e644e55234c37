import { createHash } from 'node:crypto';
import type { ContextMemory } from '@switchyard/agents';

/**
 * What a Switchyard task knows about its twin on the upstream agent, kept durably in the agent's
 * context memory (one Postgres write) so a replacement worker carries on where a dead one stopped.
 */
export interface UpstreamLink {
  /** The upstream task id, once the upstream named it. */
  taskId?: string;
  contextId?: string;
  /** The upstream messageId of the turn in progress (derived: see upstreamMessageId). */
  turn: string;
  /** True once the upstream acknowledged this turn (it answered with a task, event or reply). */
  delivered: boolean;
  /**
   * The interrupt (INPUT_REQUIRED / AUTH_REQUIRED) last relayed to our client, as interruptKey
   * names it: the one the next turn answers. An upstream may still show it just after the answer
   * arrived (a returnImmediately answer, the first poll), and that is no new question.
   */
  answering?: string;
  /**
   * The turn during which `answering` was relayed. A retry of that same turn (the relay's write
   * never landed) must relay it again; a later turn answers it.
   */
  askedIn?: string;
}

/**
 * Names one interrupt of the upstream task by its state, time and question, or undefined when
 * the upstream gives neither time nor question: then two interrupts cannot be told apart.
 */
export function interruptKey(status: {
  state: string;
  timestamp?: string;
  message?: { messageId?: string };
}): string | undefined {
  const messageId = status.message?.messageId;
  if (!status.timestamp && !messageId) return undefined;
  return `${status.state}|${status.timestamp ?? ''}|${messageId ?? ''}`;
}

const key = (taskId: string) => `a2a-upstream:task:${taskId}`;

export async function readLink(memory: ContextMemory, taskId: string): Promise<UpstreamLink | undefined> {
  return memory.get<UpstreamLink>(key(taskId));
}

export async function writeLink(memory: ContextMemory, taskId: string, link: UpstreamLink): Promise<void> {
  await memory.set(key(taskId), link);
}

/**
 * The messageId sent upstream for one turn: a UUID derived from our task id and the turn's own
 * messageId, so every retry of the turn (by this worker or a replacement) sends the same id and an
 * upstream that deduplicates by messageId sees one message.
 */
export function upstreamMessageId(taskId: string, turnMessageId: string): string {
  const h = createHash('sha256').update(`switchyard:${taskId}:${turnMessageId}`).digest('hex');
  // RFC 4122 layout with version 8 (custom, hash-based) and the variant bits set.
  const variant = ((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
