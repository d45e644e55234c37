import { Router } from 'express';
import { adminAuth } from './admin-auth.ts';
import type { AdminDeps } from './admin-deps.ts';
import { adminNotFound } from './admin-error.ts';
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
  return router;
}
