import { Router, type ErrorRequestHandler } from 'express';
import { stateOf } from '../http/request-state.ts';
import { adminAuth } from './admin-auth.ts';
import type { AdminDeps } from './admin-deps.ts';
import { adminNotFound, toAdminFailure } from './admin-error.ts';
import { agentRoutes } from './agent-routes.ts';
import { apiKeyRoutes } from './api-key-routes.ts';
import { deadLetterRoutes } from './dead-letter-routes.ts';
import { tenantRoutes } from './tenant-routes.ts';

/** `/admin/v1`: operator API, JSON in and out, errors as google.rpc.Status (README.md documents each call). */
export function adminRouter(
  deps: AdminDeps,
  { token, publicUrl }: { token: string; publicUrl: string },
): Router {
  const router = Router();
  router.use(adminAuth(token));
  router.use(tenantRoutes(deps));
  router.use(agentRoutes(deps, publicUrl));
  router.use(apiKeyRoutes(deps));
  router.use(deadLetterRoutes(deps));
  router.use(() => {
    throw adminNotFound('route');
  });
  router.use(adminErrors);
  return router;
}

/**
 * Every failure under /admin/v1 leaves as an AdminError (domain `switchyard.admin`), whatever
 * raised it; the gateway's error handler writes it. Failures that are not the request's fault are
 * logged here with their cause, since only their generic message reaches the client.
 */
const adminErrors: ErrorRequestHandler = (err: unknown, req, res, next) => {
  const { error, retryAfterSeconds, log } = toAdminFailure(err);
  const state = stateOf(req);
  if (log === 'error') state.log.error({ err }, 'internal error');
  else if (log === 'warn') state.log.warn({ err }, 'admin request refused: a dependency is unavailable');
  if (retryAfterSeconds !== undefined && !res.headersSent)
    res.set('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  next(error);
};
