import { TASK_STATES, TaskState } from '@switchyard/protocol';
import type { Request } from 'express';
import { badRequest, notFound } from './http-error.ts';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID.test(value);
/**
 * Postgres text holds neither U+0000 nor a lone UTF-16 surrogate: a value with one would fail in
 * the store as an internal error (a 500 and an error log for a client's mistake).
 */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (value: string) => !UNSTORABLE.test(value);
export const isSlug = (value: string) => SLUG.test(value);

/** A path parameter that names a tenant: anything else is a page that does not exist. */
export function tenantParam(req: Request, name = 'tenantId'): string {
  const value = req.params[name];
  if (typeof value !== 'string' || !isSlug(value)) throw notFound('tenant');
  return value;
}

/**
 * `tenantId` when the tenant exists, else a 404, as on the admin API: an unknown tenant is not a
 * tenant with nothing in it (one primary-key probe).
 */
export async function knownTenant(
  services: { admin: { getTenant(tenantId: string): Promise<unknown> } },
  tenantId: string,
): Promise<string> {
  if (!(await services.admin.getTenant(tenantId))) throw notFound('tenant');
  return tenantId;
}

export function taskIdParam(req: Request): string {
  const value = req.params.taskId;
  if (typeof value !== 'string' || !isUuid(value)) throw notFound('task');
  return value.toLowerCase();
}

/** Context ids are client-chosen strings (≤ 256 characters, no '/'). */
export function contextIdParam(req: Request): string {
  const value = req.params.contextId;
  if (typeof value !== 'string' || value === '' || value.length > 256 || !storable(value))
    throw notFound('context');
  return value;
}

/** One query-string value (the first when repeated), trimmed; undefined when absent or empty. */
export function queryString(req: Request, name: string, maxLength = 256): string | undefined {
  const raw = new URL(req.originalUrl, 'http://console.invalid').searchParams.get(name);
  const value = raw?.trim();
  if (value === undefined || value === '') return undefined;
  if (value.length > maxLength) throw badRequest(`${name} is longer than ${maxLength} characters`);
  if (!storable(value)) throw badRequest(`${name} must not contain U+0000 (NUL) or unpaired surrogates`);
  return value;
}

export function queryInt(req: Request, name: string, fallback: number, min: number, max: number): number {
  const value = queryString(req, name, 12);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw badRequest(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

const SELECTABLE = TASK_STATES.filter((s) => s !== TaskState.UNSPECIFIED);

/** TASK_STATE_WORKING, or the short form `working` / `input-required`. */
export function parseState(value: string | undefined): TaskState | undefined {
  if (value === undefined) return undefined;
  const full = value.startsWith('TASK_STATE_')
    ? value
    : `TASK_STATE_${value.toUpperCase().replace(/[- ]/g, '_')}`;
  const state = SELECTABLE.find((s) => s === full);
  if (!state) throw badRequest(`state must be one of ${SELECTABLE.join(', ')}`);
  return state;
}

export { SELECTABLE as SELECTABLE_STATES };

/** A required string field of a urlencoded or JSON body (numbers are taken as their text). */
export function bodyString(body: unknown, name: string, maxLength = 256): string {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || text === '' || text.length > maxLength)
    throw badRequest(`${name} is required`);
  if (!storable(text)) throw badRequest(`${name} must not contain U+0000 (NUL) or unpaired surrogates`);
  return text;
}
