import { Router } from 'express';
import { releaseParkedRuns } from '@switchyard/engine';
import { stateOf } from '../http/request-state.ts';
import { TenantExistsError } from '@switchyard/store';
import { adminConflict, adminNotFound } from './admin-error.ts';
import type { AdminDeps } from './admin-deps.ts';
import { slugParam } from './admin-params.ts';
import { newTenantBody, readAdminBody, tenantUpdateBody } from './admin-schemas.ts';

/** Tenants and their webhook signing secrets. A secret is shown when created or rotated, never listed. */
export function tenantRoutes({ admin, bodyLimitBytes, revocations, parkedRuns }: AdminDeps): Router {
  const router = Router();
  router.post('/tenants', async (req, res) => {
    const body = await readAdminBody(req, newTenantBody, bodyLimitBytes);
    try {
      res.status(201).json(await admin.createTenant(body));
    } catch (err) {
      if (err instanceof TenantExistsError) throw adminConflict(`tenant ${body.id} already exists`);
      throw err;
    }
  });
  router.get('/tenants', async (_req, res) => {
    res.json({ tenants: await admin.listTenants() });
  });
  // Workers read a tenant's settings at most 5 s old (worker-runtime.ts): a new cap applies
  // to the runs that start after that; runs going on keep their slots. The runs parked under
  // the old cap come back once workers know the new one, rather than by their own delays.
  router.patch('/tenants/:tenantId', async (req, res) => {
    const tenantId = slugParam(req, 'tenantId');
    const { maxRunning } = await readAdminBody(req, tenantUpdateBody, bodyLimitBytes);
    const tenant = await admin.setTenantMaxRunning(tenantId, maxRunning);
    if (!tenant) throw adminNotFound('tenant');
    await releaseParkedRuns(parkedRuns, tenantId, stateOf(req).log);
    res.json(tenant);
  });
  // A disabled tenant keeps its data, but none of its credentials authenticate; every replica
  // has dropped its cached keys and tenant status before the reply (@switchyard/events, revocation-channel.ts). Tenant
  // ids are lowercase slugs, compared exactly everywhere (the store's text column included), so
  // the id announced is the one the store matched.
  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    router.post(`/tenants/:tenantId\\:${action}`, async (req, res) => {
      const tenantId = slugParam(req, 'tenantId');
      if (!(await admin.setTenantDisabled(tenantId, disabled))) throw adminNotFound('tenant');
      await revocations.announce({ kind: 'tenant', tenantId, disabled });
      res.json({});
    });
  }
  router.post('/tenants/:tenantId/webhook-secret\\:rotate', async (req, res) => {
    const webhookSecret = await admin.rotateWebhookSecret(slugParam(req, 'tenantId'));
    if (webhookSecret === null) throw adminNotFound('tenant');
    res.json({ webhookSecret });
  });
  return router;
}
