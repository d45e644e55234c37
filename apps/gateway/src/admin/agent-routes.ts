import { Router } from 'express';
import { pathParam } from '../http/path-param.ts';
import { findBundledAgent } from '@switchyard/agents';
import { agentBasePath } from '../cards/card-builder.ts';
import { adminInvalid, adminNotFound } from './admin-error.ts';
import type { AdminDeps } from './admin-deps.ts';
import { agentBody, parseAdmin, readAdminBody, slug } from './admin-schemas.ts';

/** Agent registrations: a card template, a bundled executor and its settings. */
export function agentRoutes({ admin, bodyLimitBytes }: AdminDeps, publicUrl: string): Router {
  const router = Router();
  const urls = (tenantId: string, agentId: string) => {
    const base = `${publicUrl}${agentBasePath(tenantId, agentId)}`;
    return { card: `${base}/.well-known/agent-card.json`, jsonRpc: `${base}/rpc`, rest: `${base}/rest` };
  };
  router.put('/tenants/:tenantId/agents/:agentId', async (req, res) => {
    const tenantId = pathParam(req, 'tenantId');
    const agentId = parseAdmin(slug, pathParam(req, 'agentId'));
    const body = await readAdminBody(req, agentBody, bodyLimitBytes);
    if (!findBundledAgent(body.executor)) {
      throw adminInvalid(`unknown executor ${body.executor}`, [
        {
          field: 'executor',
          description: 'must name a bundled agent: echo, invoice-reconciler, booking or slow',
        },
      ]);
    }
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    const agent = await admin.upsertAgent({
      tenantId,
      id: agentId,
      card: body.card,
      executor: body.executor,
      settings: body.settings,
    });
    res.json({ agent, urls: urls(tenantId, agentId) });
  });
  router.get('/tenants/:tenantId/agents', async (req, res) => {
    const tenantId = pathParam(req, 'tenantId');
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    const agents = await admin.listAgents(tenantId);
    res.json({ agents: agents.map((agent) => ({ ...agent, urls: urls(tenantId, agent.id) })) });
  });
  router.delete('/tenants/:tenantId/agents/:agentId', async (req, res) => {
    if (!(await admin.deleteAgent(pathParam(req, 'tenantId'), pathParam(req, 'agentId'))))
      throw adminNotFound('agent');
    res.json({});
  });
  return router;
}
