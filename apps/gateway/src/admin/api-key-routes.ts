import { Router } from 'express';
import { adminNotFound } from './admin-error.ts';
import type { AdminDeps } from './admin-deps.ts';
import { slugParam, uuidParam } from './admin-params.ts';
import { newApiKeyBody, readAdminBody } from './admin-schemas.ts';

/**
 * API keys. The plaintext is in the create and rotate replies only (the store keeps its hash).
 * Revoking or rotating announces the old key (@switchyard/events, revocation-channel.ts), so every gateway replica has
 * dropped it from its cache before the reply, instead of honouring it until the entry expires. The
 * key id is announced in the store's form (lowercase): the gateways compare it as a string.
 */
export function apiKeyRoutes({ admin, revocations, bodyLimitBytes }: AdminDeps): Router {
  const router = Router();
  router.post('/tenants/:tenantId/api-keys', async (req, res) => {
    const tenantId = slugParam(req, 'tenantId');
    const { expiresAt, ...body } = await readAdminBody(req, newApiKeyBody, bodyLimitBytes);
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    res
      .status(201)
      .json(await admin.createApiKey({ tenantId, ...body, ...(expiresAt ? { expiresAt } : {}) }));
  });
  router.get('/tenants/:tenantId/api-keys', async (req, res) => {
    const tenantId = slugParam(req, 'tenantId');
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    res.json({ keys: await admin.listApiKeys(tenantId) });
  });
  router.post('/tenants/:tenantId/api-keys/:keyId\\:rotate', async (req, res) => {
    const tenantId = slugParam(req, 'tenantId');
    const keyId = uuidParam(req, 'keyId');
    const issued = await admin.rotateApiKey(tenantId, keyId);
    if (!issued) throw adminNotFound('live API key');
    await revocations.announce({ kind: 'api-key', tenantId, keyId });
    res.json(issued);
  });
  router.delete('/tenants/:tenantId/api-keys/:keyId', async (req, res) => {
    const tenantId = slugParam(req, 'tenantId');
    const keyId = uuidParam(req, 'keyId');
    if (!(await admin.revokeApiKey(tenantId, keyId))) throw adminNotFound('API key');
    await revocations.announce({ kind: 'api-key', tenantId, keyId });
    res.json({});
  });
  return router;
}
