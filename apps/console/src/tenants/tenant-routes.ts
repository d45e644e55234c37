import { Router } from 'express';
import { csrfOf } from '../auth/request-auth.ts';
import type { ConsoleServices } from '../console-services.ts';
import { notFound } from '../http/http-error.ts';
import { bodyString, queryString, tenantParam } from '../http/params.ts';
import { sendPage, withParam } from '../http/send-page.ts';
import { paths } from '../links.ts';
import { parseRunCap } from './run-cap-text.ts';
import { loadTenantOverview } from './tenant-overview.ts';
import { renderTenantsPage } from './tenants-page.ts';

/** Tenants with their backlog and run cap, and setting a tenant's cap (as the admin API's PATCH). */
export function tenantRoutes(services: ConsoleServices): Router {
  const router = Router();

  router.get('/tenants', async (req, res) => {
    sendPage(req, res, {
      title: 'Tenants',
      section: 'tenants',
      body: renderTenantsPage(await loadTenantOverview(services), {
        csrf: csrfOf(req),
        notice: queryString(req, 'notice', 40),
      }),
    });
  });

  router.post('/tenants/:tenantId/run-cap', async (req, res) => {
    const tenantId = tenantParam(req);
    const maxRunning = parseRunCap(bodyString(req.body, 'cap', 16));
    await setRunCap(services, tenantId, maxRunning);
    res.redirect(303, withParam(paths.tenants(), 'notice', 'run-cap-set'));
  });

  return router;
}

/** Stores a tenant's own cap and logs who asked (the console acts with the admin credential). */
export async function setRunCap(
  services: ConsoleServices,
  tenantId: string,
  maxRunning: number | null,
): Promise<void> {
  const tenant = await services.admin.setTenantMaxRunning(tenantId, maxRunning);
  if (!tenant) throw notFound('tenant');
  services.log.info({ tenantId, maxRunning, action: 'set-run-cap' }, 'console: tenant run cap set');
}
