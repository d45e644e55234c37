import { z } from 'zod';

export interface ProtoObjectOptions {
  /** Keys whose `null` is a real value (only `google.protobuf.Value` fields such as `Part.data`). */
  keepNull?: readonly string[];
}

/**
 * A ProtoJSON message object (digest §1): unknown keys are ignored; snake_case spellings of known
 * keys are accepted (a ProtoJSON parser accepts the proto field names; camelCase wins when both are
 * present); `null` means "unset" except for Value fields; keys whose value ends up undefined (e.g.
 * an empty optional string, TASK_STATE_UNSPECIFIED) are removed from the output.
 */
export function protoObject<Shape extends z.core.$ZodLooseShape>(
  shape: Shape,
  options: ProtoObjectOptions = {},
) {
  const keys = new Set(Object.keys(shape));
  const keepNull = new Set(options.keepNull ?? []);
  return z
    .preprocess((input) => normalizeKeys(input, keys, keepNull), z.object(shape))
    .transform(dropUndefined);
}

function normalizeKeys(input: unknown, keys: ReadonlySet<string>, keepNull: ReadonlySet<string>): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const source = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of Object.entries(source)) {
    const key = keys.has(rawKey) ? rawKey : snakeToCamel(rawKey);
    // Only known keys are copied, so a hostile `__proto__` key can never reach `out`.
    if (!keys.has(key)) continue;
    if (key !== rawKey && Object.hasOwn(source, key)) continue;
    if (value === null && !keepNull.has(key)) continue;
    out[key] = value;
  }
  return out;
}

function snakeToCamel(key: string): string {
  return key.includes('_') ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key;
}

function dropUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}
