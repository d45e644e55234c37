import type { z } from 'zod';
import type { FieldViolation } from '../errors/error-details.ts';
import { errorMap } from './error-map.ts';
import { DEFAULT_PROTOCOL_LIMITS, resolveLimits, type ProtocolLimits } from './limits.ts';
import { invalidParamsFromViolations, issuesToViolations } from './violations.ts';

/** Options of every request parser. */
export interface ParseOptions {
  /**
   * Size limits; missing fields take the `DEFAULT_PROTOCOL_LIMITS` values. Validators are cached
   * per object, so pass the same object on every call (resolve it once at start-up).
   */
  limits?: Partial<ProtocolLimits>;
}

/** Options of the HTTP+JSON parsers. */
export interface HttpParseOptions extends ParseOptions {
  /**
   * The `/{tenant}` path segment when the route has one (digest §2.6). It replaces any `tenant`
   * in the body or query; when absent, a `tenant` given there is kept.
   */
  tenant?: string;
}

const resolved = new WeakMap<Partial<ProtocolLimits>, ProtocolLimits>();

export function limitsOf(options: ParseOptions | undefined): ProtocolLimits {
  const partial = options?.limits;
  if (partial === undefined || partial === DEFAULT_PROTOCOL_LIMITS) return DEFAULT_PROTOCOL_LIMITS;
  let limits = resolved.get(partial);
  if (!limits) {
    limits = resolveLimits(partial);
    resolved.set(partial, limits);
  }
  return limits;
}

/** Runs a validator; any failure becomes InvalidParams with BadRequest field violations. */
export function runSchema<T>(schema: z.ZodType<T>, input: unknown, extra: readonly FieldViolation[] = []): T {
  const result = schema.safeParse(input, { error: errorMap });
  if (result.success && extra.length === 0) return result.data;
  const violations = [...extra, ...(result.success ? [] : issuesToViolations(result.error.issues))];
  throw invalidParamsFromViolations(violations);
}
