import type { Request } from 'express';
import { pathParam } from '../http/path-param.ts';
import { adminInvalid } from './admin-error.ts';

/** Tenant and agent ids: URL path segments and Redis key parts (the admin schemas' slug rule). */
export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const SLUG_RULE = 'lowercase letters, digits and -, at most 63';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Push delivery seqs are Postgres integers. */
const MAX_SEQ = 2 ** 31 - 1;

/** Push config ids are client-chosen strings (the A2A side's id limit). */
const MAX_CONFIG_ID_LENGTH = 256;

/**
 * Path parameters of the admin API, checked before anything reads the store: a value no record can
 * have (a NUL byte, which Postgres text cannot hold; an id of the wrong shape; a seq past the
 * column's range) is INVALID_ARGUMENT naming the parameter, never a store error.
 */
export function slugParam(req: Request, name: 'tenantId' | 'agentId'): string {
  const value = pathParam(req, name);
  if (!SLUG.test(value)) throw invalidParam(name, SLUG_RULE);
  return value;
}

/**
 * A uuid, in its canonical lowercase form: Postgres compares uuids whatever their case, but what
 * the gateways compare as strings (revocations against cached key ids and stream owners) must be
 * the form the store returns, or an id written in capitals matches nothing there.
 */
export function uuidParam(req: Request, name: 'keyId' | 'taskId'): string {
  const value = pathParam(req, name);
  if (!UUID.test(value)) throw invalidParam(name, 'must be a uuid');
  return value.toLowerCase();
}

export function configIdParam(req: Request): string {
  const value = pathParam(req, 'configId');
  if (value === '' || value.length > MAX_CONFIG_ID_LENGTH || value.includes('\0') || !value.isWellFormed())
    throw invalidParam(
      'configId',
      `1 to ${MAX_CONFIG_ID_LENGTH} characters, without U+0000 (NUL) or unpaired surrogates`,
    );
  return value;
}

export function seqParam(req: Request): number {
  const value = pathParam(req, 'seq');
  const seq = /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(seq <= MAX_SEQ)) throw invalidParam('seq', `an integer from 1 to ${MAX_SEQ}`);
  return seq;
}

function invalidParam(name: string, description: string) {
  return adminInvalid(`Invalid path parameter ${name}: ${description}`, [{ field: name, description }]);
}
