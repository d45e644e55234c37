import { InvalidPageTokenError } from '../errors.ts';

/**
 * Page tokens are opaque to clients (digest §7.4 rule 22): base64url of a small JSON cursor. They
 * carry only keyset positions, never filters or tenant, so a token is useless outside the query
 * that scopes it. A version tag lets the cursor change shape later without misreading old tokens.
 */
export function encodePageToken(cursor: Record<string, string>): string {
  return Buffer.from(JSON.stringify({ v: 1, ...cursor }), 'utf8').toString('base64url');
}

/** A check of one cursor field: a RegExp, or anything else with its `test`. */
export interface FieldCheck {
  test(value: string): boolean;
}

const MICROSECOND_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * The keyset cursor of the task lists: (status_timestamp, id) descending, the time with Postgres's
 * microseconds in UTC (a JS Date would round them and skip or repeat rows). The time must be one
 * Postgres can read back: a well-shaped `2024-99-99T99:99:99.000000Z` or year 0 in a forged token
 * failed its `::timestamptz` cast, an internal error where the spec names InvalidParams.
 */
export const TASK_LIST_CURSOR = {
  t: { test: (value: string) => MICROSECOND_UTC.test(value) && isRealUtcTime(value) },
  i: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
} satisfies Record<string, FieldCheck>;

/** Whether `YYYY-MM-DDTHH:MM:SS…` names a real instant of years 1-9999 (no Feb 30, no hour 24). */
function isRealUtcTime(value: string): boolean {
  const seconds = value.slice(0, 19);
  const date = new Date(`${seconds}Z`);
  return !Number.isNaN(date.getTime()) && seconds >= '0001' && date.toISOString().slice(0, 19) === seconds;
}

/** Decodes a token into the named string fields, or throws InvalidPageTokenError. */
export function decodePageToken<K extends string>(
  token: string,
  fields: Record<K, FieldCheck>,
): Record<K, string> {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (cause) {
    throw new InvalidPageTokenError({ cause });
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { v?: unknown }).v !== 1)
    throw new InvalidPageTokenError();
  const out = {} as Record<K, string>;
  for (const key of Object.keys(fields) as K[]) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value !== 'string' || !fields[key].test(value)) throw new InvalidPageTokenError();
    out[key] = value;
  }
  return out;
}
