import { invalidParams, methodNotFound } from '../errors/factories.ts';
import type { A2AMethod, A2AMethodRequest } from '../types/methods.ts';
import { isPlainObject } from './json-value.ts';
import { limitsOf, runSchema, type ParseOptions } from './parse-options.ts';
import { requestSchemas } from './request-schemas.ts';

/**
 * Validates JSON-RPC `params` for `method` (digest §4.1) and returns the normalized request:
 * unknown fields dropped, snake_case keys and numeric strings accepted, "" and null treated as
 * unset, ints as numbers, timestamps as `YYYY-MM-DDTHH:mm:ss.sssZ`, `tenant` kept.
 * Absent or null params count as `{}` (GetExtendedAgentCard needs none; other methods then report
 * their missing required fields). Throws A2AError InvalidParams with field violations.
 */
export function parseRequestParams<M extends A2AMethod>(
  method: M,
  params: unknown,
  options?: ParseOptions,
): A2AMethodRequest[M] {
  const schema = requestSchemas(limitsOf(options))[method];
  if (schema === undefined) throw methodNotFound(String(method));
  const input = params === undefined || params === null ? {} : params;
  // JSON-RPC allows by-position (array) params; A2A defines only named params.
  if (!isPlainObject(input)) throw invalidParams('params must be a JSON object');
  return runSchema(schema, input);
}
