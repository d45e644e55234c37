import { createHash } from 'node:crypto';
import type { JsonObject, Message } from '@switchyard/protocol';

/**
 * The loop guard. An `a2a-upstream` agent whose upstream is (through any number of hops, tenants
 * and deployments) an `a2a-upstream` agent that leads back to it would start a run of itself on
 * every run, each holding a worker slot while it waits on the next: every slot is taken within
 * seconds and every tenant's work stalls until the run timeout. So every message the worker sends
 * upstream says how far it has come, in two places:
 *
 * - the `Switchyard-Hop-Count` request header, on every request to the upstream (the card read
 *   included): how many a2a-upstream hops the request has made, this one counted. A Switchyard
 *   gateway refuses a request past MAX_HOPS before it creates a task (a2a/service-params.ts).
 * - the message's metadata, key `switchyard.hops`: `{ count, via }`, where `via` names each
 *   upstream card URL the chain has been forwarded to (a short hash, not the URL). A Switchyard
 *   gateway stores a message's metadata with it, so the next worker reads it from the message it
 *   runs, with no help from the gateway, whichever deployment it is on.
 *
 * A run refuses (fails its task, no retry) when its message has already made MAX_HOPS hops, or
 * was already forwarded to the card URL this run would send it to: that second rule ends a loop
 * after one turn of it, holding as many worker slots as the loop has agents, whatever MAX_HOPS is.
 * A chain through an agent that is not Switchyard (which drops the metadata) is not seen.
 */
export const HOP_COUNT_HEADER = 'switchyard-hop-count';
export const HOPS_METADATA_KEY = 'switchyard.hops';
/** Hops a message may make through a2a-upstream agents. */
export const MAX_HOPS = 8;

export const TOO_MANY_HOPS_MESSAGE =
  `The request was refused: it has already been forwarded through ${MAX_HOPS} upstream agents ` +
  '(a2a-upstream), the most this platform allows, so the agents may form a loop.';
export const LOOP_MESSAGE =
  'The request was refused: it has already been forwarded to this upstream agent, so the ' +
  'a2a-upstream agents form a loop.';

/** What a message says about the hops it has made. */
export interface Hops {
  count: number;
  /** hopId of each upstream card URL the message was forwarded to, oldest first. */
  via: string[];
}

export type HopDecision = { ok: true; next: Hops } | { ok: false; message: string };

/** A card URL as the `via` list names it: 16 hex digits of its SHA-256. */
export function hopId(cardUrl: string): string {
  return createHash('sha256').update(`switchyard-hop:${cardUrl}`).digest('hex').slice(0, 16);
}

/** The hops a message has made (none when it came straight from a client). Lenient: junk is none. */
export function hopsOf(message: Pick<Message, 'metadata'>): Hops {
  const raw = message.metadata?.[HOPS_METADATA_KEY];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { count: 0, via: [] };
  const { count, via } = raw as { count?: unknown; via?: unknown };
  const list = Array.isArray(via)
    ? via.filter((v): v is string => typeof v === 'string' && v.length <= 64).slice(-MAX_HOPS * 2)
    : [];
  const n = typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? count : 0;
  return { count: Math.max(n, list.length), via: list };
}

/** Whether a run may forward `message` to the upstream card at `cardUrl`, and the hops it then makes. */
export function nextHop(message: Pick<Message, 'metadata'>, cardUrl: string): HopDecision {
  const hops = hopsOf(message);
  const id = hopId(cardUrl);
  if (hops.via.includes(id)) return { ok: false, message: LOOP_MESSAGE };
  if (hops.count >= MAX_HOPS) return { ok: false, message: TOO_MANY_HOPS_MESSAGE };
  return { ok: true, next: { count: hops.count + 1, via: [...hops.via, id] } };
}

/** The metadata of the message sent upstream: the client's, with the hops it will have made. */
export function withHops(metadata: JsonObject | undefined, hops: Hops): JsonObject {
  return { ...metadata, [HOPS_METADATA_KEY]: { count: hops.count, via: [...hops.via] } };
}

/**
 * The message a gateway stores for a request whose `Switchyard-Hop-Count` header says it has made
 * `headerCount` hops: its metadata counts at least that many, so the run that forwards it again
 * counts on from there. Without this a loop through an agent that passes the header on but drops
 * the metadata would send a count of 1 on every turn, and never reach the gateway's refusal.
 */
export function withHeaderHops<M extends Pick<Message, 'metadata'>>(message: M, headerCount: number): M {
  const hops = hopsOf(message);
  if (headerCount <= hops.count) return message;
  return { ...message, metadata: withHops(message.metadata, { count: headerCount, via: hops.via }) };
}

/**
 * Reads an incoming `Switchyard-Hop-Count` header (for a gateway's check): undefined when absent,
 * the count when it is a decimal integer, 'invalid' otherwise. A request whose count is past
 * MAX_HOPS should be refused.
 */
export function readHopCountHeader(value: string | string[] | undefined): number | 'invalid' | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(',') : value;
  if (!/^\s*\d{1,6}\s*$/.test(text)) return 'invalid';
  return Number(text);
}
