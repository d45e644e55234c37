import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { stateOf } from '../http/request-state.ts';
import { adminUnauthenticated } from './admin-error.ts';

/**
 * The admin API has its own credential, separate from tenants' keys: `Authorization: Bearer
 * <SWITCHYARD_ADMIN_TOKEN>`. Both sides are hashed first so the comparison is constant-time
 * whatever the lengths.
 */
export function adminAuth(token: string): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    stateOf(req).binding = 'admin';
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      res.set('WWW-Authenticate', 'Bearer realm="switchyard-admin"');
      throw adminUnauthenticated();
    }
    next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
