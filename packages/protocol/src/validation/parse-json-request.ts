import type { ExactNumberId } from '../types/json-rpc.ts';

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
 * JSON.stringify writes back digit for digit. Only an `id` beside a `jsonrpc` member is kept that
 * way; every other number parses as usual.
 */
export function parseJsonRequest(text: string): unknown {
  if (!LONG_NUMBER_ID.test(text)) return JSON.parse(text) as unknown;
  return JSON.parse(text, function (
    this: Record<string, unknown>,
    key,
    value: unknown,
    context?: ReviverContext,
  ) {
    if (key !== 'id' || typeof value !== 'number' || Number.isSafeInteger(value)) return value;
    const source = context?.source;
    if (source === undefined || !/^-?\d+$/.test(source) || !('jsonrpc' in this)) return value;
    return rawJSON(source);
  } as (key: string, value: unknown) => unknown) as unknown;
}

/** Whether a value is an id `parseJsonRequest` kept as its digits. */
export function isExactNumberId(value: unknown): value is ExactNumberId {
  return (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON(value);
}
