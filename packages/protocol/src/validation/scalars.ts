import { z } from 'zod';
import { TASK_STATES, TaskState } from '../task-state.ts';
import { formatTimestamp, parseTimestamp, type ParseTimestampOptions } from '../timestamp.ts';
import { Role } from '../types/message.ts';

const INT32_MAX = 2_147_483_647;

// ProtoJSON: an implicit-presence string holding "" is unset (digest §1 "Default values").
const emptyToUndefined = (value: unknown): unknown => (value === '' ? undefined : value);

// ProtoJSON int32 also accepts numeric strings (digest §1); query strings always need this.
const numericStringToNumber = (value: unknown): unknown =>
  typeof value === 'string' && /^\s*-?\d{1,12}\s*$/.test(value) ? Number(value) : value;

// A schema-level message replaces the shared error map, so keep "is required" for absent values.
const orRequired =
  (message: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'is required' : message;

/**
 * Longest `pageToken` accepted. The server's own tokens are base64url of a small cursor holding at
 * most one id (well under 2,100 characters even for a 256-character id of escaped characters), so
 * a longer one cannot be a token this server issued.
 */
export const MAX_PAGE_TOKEN_LENGTH = 4096;

/** `pageToken`: opaque and server-issued (digest §7.4 rule 22); "" means the first page. */
export const pageTokenSchema = () =>
  z.preprocess(emptyToUndefined, z.string().max(MAX_PAGE_TOKEN_LENGTH).optional());

/**
 * A repeated field of at most `max` entries. The count is checked before any entry is parsed, so
 * a huge array fails fast with one violation instead of one per entry.
 */
export function boundedList<T extends z.ZodType>(item: T, max: number) {
  return z.array(z.unknown()).max(max, `must contain at most ${max} entries`).pipe(z.array(item));
}

/**
 * A required identifier: non-empty, bounded, and usable as one URL path segment (digest §4.2):
 * no '/', and not '.' or '..', which URL parsers resolve away (`…/configs/..` is the task's path).
 */
export function idSchema(maxLength: number) {
  return opaqueIdSchema(maxLength)
    .refine((s) => !s.includes('/'), { message: "must not contain '/'" })
    .refine((s) => s !== '.' && s !== '..', { message: "must not be '.' or '..'" });
}

/**
 * A required identifier that never goes into a URL (a messageId): opaque (digest §1), so only
 * non-empty and bounded. Clients pick these, and 'urn:client/msg/1' is theirs to pick.
 */
export function opaqueIdSchema(maxLength: number) {
  return z.string().min(1).max(maxLength);
}

export const optionalId = (maxLength: number) =>
  z.preprocess(emptyToUndefined, idSchema(maxLength).optional());

/** `tenant`: opaque (§2.6) but bounded; preserved as given, "" means unset. */
export const tenantSchema = (maxLength: number) =>
  z.preprocess(emptyToUndefined, z.string().max(maxLength).optional());

/** An int32 within [min, max]; the range message names both bounds so clients see the rule. */
export function int32(min: number, max: number = INT32_MAX) {
  const range =
    max === INT32_MAX ? `must be an integer >= ${min}` : `must be an integer between ${min} and ${max}`;
  // A query's "1.5" stays a string, which zod calls not a number: an integer is what is wanted,
  // and the JSON-RPC binding's 1.5 says so too.
  return z.preprocess(
    numericStringToNumber,
    z
      .int({ error: orRequired('must be an integer') })
      .min(min, range)
      .max(max, range),
  );
}

/** Role of a message; ProtoJSON readers also accept the enum numbers 1 and 2 (digest §1). */
export const roleSchema = () =>
  z.preprocess(
    (v) => (v === 1 ? Role.USER : v === 2 ? Role.AGENT : v),
    z.enum([Role.USER, Role.AGENT], { error: orRequired('must be ROLE_USER or ROLE_AGENT') }),
  );

/** A TaskState name, or its proto number 0..8 (as a number, or a string in a query). */
export const taskStateSchema = () =>
  z.preprocess(
    (v) => {
      const n = typeof v === 'string' && /^\d$/.test(v) ? Number(v) : v;
      return typeof n === 'number' && Number.isInteger(n) ? (TASK_STATES[n] ?? v) : v;
    },
    z.enum(TASK_STATES as [TaskState, ...TaskState[]], {
      error: orRequired(`must be a TaskState name such as ${TaskState.WORKING}`),
    }),
  );

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** ProtoJSON `bytes`: standard or URL-safe base64, padded or not (digest §1). */
export function isBase64(value: string): boolean {
  if (!BASE64.test(value)) return false;
  const padded = value.endsWith('=');
  return padded ? value.length % 4 === 0 : value.length % 4 !== 1;
}

/**
 * ProtoJSON writes `bytes` as standard base64 with padding: readers accept either alphabet, but a
 * strict decoder of what we send (a webhook receiver, another SDK) may not.
 */
export function toStandardBase64(value: string): string {
  const standard = value.replace(/-/g, '+').replace(/_/g, '/');
  return standard.endsWith('=') ? standard : standard.padEnd(Math.ceil(standard.length / 4) * 4, '=');
}

/** Accepts either alphabet, padded or not, and stores what ProtoJSON writes (toStandardBase64). */
export const base64Schema = () =>
  z
    .string()
    .refine(isBase64, { message: 'must be base64 (standard or URL-safe alphabet)' })
    .transform(toStandardBase64);

/** An absolute URL; `httpOnly` restricts it to http(s), as webhooks need (digest §8). */
export function absoluteUrlSchema(maxLength: number, httpOnly: boolean) {
  return z
    .string()
    .min(1)
    .max(maxLength)
    .refine(
      (s) => {
        if (!URL.canParse(s)) return false;
        const { protocol } = new URL(s);
        return !httpOnly || protocol === 'http:' || protocol === 'https:';
      },
      { message: httpOnly ? 'must be an absolute http(s) URL' : 'must be an absolute URL' },
    );
}

/**
 * An RFC 3339 timestamp, normalized to `YYYY-MM-DDTHH:mm:ss.sssZ`; a fraction finer than a
 * millisecond is truncated, or rounded up to the next millisecond with `subMillisecond: 'ceil'`.
 */
export const timestampSchema = (options: ParseTimestampOptions = {}) =>
  z.string().transform((value, ctx) => {
    const date = parseTimestamp(value, options);
    if (date === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an RFC 3339 timestamp, e.g. 2026-01-01T00:00:00.000Z',
      });
      return z.NEVER;
    }
    return formatTimestamp(date);
  });

// RFC 9110 token: an auth scheme ends up in `Authorization: <scheme> <credentials>`.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Visible ASCII, space and tab: anything else (CR, LF, NUL…) could split or corrupt a header.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

export const authSchemeSchema = (maxLength: number) =>
  z
    .string()
    .min(1)
    .max(maxLength)
    .refine((s) => TOKEN.test(s), { message: 'must be an HTTP auth scheme token such as Bearer' });

/** An optional string that is sent later as (part of) an HTTP header value; "" means unset. */
export const optionalHeaderValue = (maxLength: number) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .max(maxLength)
      .refine((s) => HEADER_VALUE.test(s), { message: 'must contain only printable ASCII characters' })
      .optional(),
  );
