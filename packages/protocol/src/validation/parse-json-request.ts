import type { ExactNumberId } from '../types/json-rpc.ts';
import { MAX_JSON_RPC_ID_LENGTH } from './json-rpc-envelope.ts';

/**
 * A number id written with 16 or more digits: the shortest that a double may not hold exactly
 * (2^53 = 9007199254740992 has 16). Only a body that matches pays for the reviver below.
 */
const LONG_NUMBER_ID = /"id"\s*:\s*-?\d{16}/;

// Node 24 has JSON source-text access (JSON.rawJSON, the reviver's third argument); ES2024's lib
// does not declare them yet.
type ReviverContext = { source?: string };
const rawJSON = (JSON as unknown as { rawJSON(text: string): ExactNumberId }).rawJSON;

/**
 * JSON.parse for a request body, except that a JSON-RPC integer id too large for a double keeps
 * its exact digits. JSON-RPC 2.0 §5 asks a reply to carry the request's id unchanged: parsed as a
 * double, 9007199254740993 came back as 9007199254740992, and a client matching replies by id
 * (int64 counters, snowflake ids) lost the reply. Such an id is kept as a raw JSON number, which
 * JSON.stringify writes back digit for digit.
 *
 * Only the envelope's own `id` is kept that way (the body's, or each of a batch's requests'):
 * an `id` inside params stays an ordinary number, so the message an agent sees holds no raw
 * values. And only up to MAX_JSON_RPC_ID_LENGTH digits, the limit a string id has, since every
 * reply and stream event repeats it; a longer one parses as a double, as it always did.
 */
export function parseJsonRequest(text: string): unknown {
  if (!LONG_NUMBER_ID.test(text)) return JSON.parse(text) as unknown;
  const exact = new Map<object, string>();
  const reviver = function (this: object, key: string, value: unknown, context?: ReviverContext) {
    if (key === '') return keepExactIds(value, exact);
    if (key !== 'id' || typeof value !== 'number' || Number.isSafeInteger(value)) return value;
    const source = context?.source;
    if (source !== undefined && source.length <= MAX_JSON_RPC_ID_LENGTH && /^-?\d+$/.test(source))
      exact.set(this, source);
    return value;
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown) as unknown;
}

/** At the root: the envelope (or each request of a batch) gets its exact id. */
function keepExactIds(root: unknown, exact: Map<object, string>): unknown {
  const envelopes = Array.isArray(root) ? (root as unknown[]) : [root];
  for (const envelope of envelopes) {
    if (typeof envelope !== 'object' || envelope === null) continue;
    const source = exact.get(envelope);
    if (source !== undefined) (envelope as { id: unknown }).id = rawJSON(source);
  }
  return root;
}

/** Whether a value is an id `parseJsonRequest` kept as its digits. */
export function isExactNumberId(value: unknown): value is ExactNumberId {
  return (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON(value);
}
