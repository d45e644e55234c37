import { Router } from 'express';
import { releaseParkedRuns } from '@switchyard/engine';
import { csrfOf } from '../auth/request-auth.ts';
import type { ConsoleServices } from '../console-services.ts';
import { notFound } from '../http/http-error.ts';
import { bodyString, queryString, tenantParam } from '../http/params.ts';
import { sendPage, withParam } from '../http/send-page.ts';
import { paths } from '../links.ts';
import { parseRunCap } from './run-cap-text.ts';
import { loadTenantOverview } from './tenant-overview.ts';
import { renderTenantsPage } from './tenants-page.ts';

/** Tenants with their backlog and run cap: setting the cap, disabling and enabling (as the admin API). */
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

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    router.post(`/tenants/:tenantId/${action}`, async (req, res) => {
      const { confirmed } = await setTenantDisabled(services, tenantParam(req), disabled);
      const notice = `tenant-${disabled ? 'disabled' : 'enabled'}${confirmed ? '' : '-unconfirmed'}`;
      res.redirect(303, withParam(paths.tenants(), 'notice', notice));
    });
  }

  router.post('/tenants/:tenantId/run-cap', async (req, res) => {
    const tenantId = tenantParam(req);
    const maxRunning = parseRunCap(bodyString(req.body, 'cap', 16));
    await setRunCap(services, tenantId, maxRunning);
    res.redirect(303, withParam(paths.tenants(), 'notice', 'run-cap-set'));
  });

  return router;
}

/**
 * Stores a tenant's own cap and logs who asked (the console acts with the admin credential). Its
 * runs parked under the old cap come back once the workers know the new one (as after the admin
 * API's PATCH), not by their own delays; when Redis fails, they do come back by those.
 */
export async function setRunCap(
  services: ConsoleServices,
  tenantId: string,
  maxRunning: number | null,
): Promise<void> {
  const tenant = await services.admin.setTenantMaxRunning(tenantId, maxRunning);
  if (!tenant) throw notFound('tenant');
  const released = await releaseParkedRuns(services.queue, tenantId, services.log);
  services.log.info({ tenantId, maxRunning, released, action: 'set-run-cap' }, 'console: tenant run cap set');
}

/**
 * Disables or enables a tenant as the admin API does: the store first, then the announcement,
 * which returns once every gateway has dropped the tenant's cached keys and status, or after the
 * acks' time limit. Says whether every gateway confirmed: the change is committed either way, and
 * a gateway that did not confirm (Redis away, a stalled replica) drops its cached entries within
 * their TTL (10 s). A disabled tenant keeps its data; its keys stop working, its queued and new
 * tasks wait, its runs going on finish.
 */
export async function setTenantDisabled(
  services: ConsoleServices,
  tenantId: string,
  disabled: boolean,
): Promise<{ confirmed: boolean }> {
  if (!(await services.admin.setTenantDisabled(tenantId, disabled))) throw notFound('tenant');
  const announced = await services.revocations
    .announce({ kind: 'tenant', tenantId, disabled })
    .catch((err: unknown) => {
      services.log.warn({ err, tenantId }, 'could not announce a tenant change to the gateways');
      return { receivers: 0, confirmed: -1 };
    });
  const confirmed = announced.confirmed >= announced.receivers;
  services.log.info(
    { tenantId, action: disabled ? 'disable-tenant' : 'enable-tenant', ...announced },
    `console: tenant ${disabled ? 'disabled' : 'enabled'}`,
  );
  return { confirmed };
}
