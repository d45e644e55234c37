import { z } from 'zod';
import type { JsonObject, JsonValue } from '../types/common.ts';

/**
 * True when `value` is plain JSON no deeper than `maxDepth` levels. The depth cap keeps this
 * (and every later recursive walk over the value) far from the stack limit.
 */
export function isJsonValue(value: unknown, maxDepth: number): value is JsonValue {
  return check(value, maxDepth);
}

function check(value: unknown, depthLeft: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depthLeft <= 0) return false;
      if (Array.isArray(value)) return value.every((item) => check(item, depthLeft - 1));
      if (!isPlainObject(value)) return false;
      return Object.values(value).every((item) => check(item, depthLeft - 1));
    }
    default:
      return false;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

const encoder = new TextEncoder();

/** True when `text` is longer than `limit` bytes in UTF-8; encodes only when the answer is unclear. */
export function exceedsUtf8Bytes(text: string, limit: number): boolean {
  // Each UTF-16 code unit is 1 to 3 UTF-8 bytes.
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return encoder.encode(text).byteLength > limit;
}

/** `google.protobuf.Value`: any JSON value, `null` included (`Part.data`), within depth and size. */
export function jsonValueSchema(maxDepth: number, maxBytes: number) {
  return z
    .custom<JsonValue>((v) => v !== undefined && isJsonValue(v, maxDepth), {
      error: `must be a JSON value nested at most ${maxDepth} levels`,
    })
    .superRefine((value, ctx) => {
      if (exceedsUtf8Bytes(JSON.stringify(value), maxBytes)) {
        ctx.addIssue({ code: 'custom', message: `must be at most ${maxBytes} bytes of JSON` });
      }
    });
}

/** `google.protobuf.Struct` used as `metadata`: a JSON object within depth and size limits. */
export function metadataSchema(maxDepth: number, maxBytes: number) {
  return z
    .custom<JsonObject>((v) => isPlainObject(v), { error: 'must be an object' })
    .superRefine((value, ctx) => {
      if (!isJsonValue(value, maxDepth)) {
        ctx.addIssue({ code: 'custom', message: `must be JSON nested at most ${maxDepth} levels` });
        return;
      }
      if (exceedsUtf8Bytes(JSON.stringify(value), maxBytes)) {
        ctx.addIssue({ code: 'custom', message: `must be at most ${maxBytes} bytes of JSON` });
      }
    });
}
