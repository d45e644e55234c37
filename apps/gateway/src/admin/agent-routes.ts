import { Router } from 'express';
import { pathParam } from '../http/path-param.ts';
import { findBundledAgent } from '@switchyard/agents';
import { agentBasePath } from '../cards/card-builder.ts';
import { adminInvalid, adminNotFound } from './admin-error.ts';
import type { AdminDeps } from './admin-deps.ts';
import { readJsonBody } from '../http/read-json-body.ts';
import { agentBody, parseAdmin, slug } from './admin-schemas.ts';
import { isUpstreamBody, redact, upstreamRegistration } from './upstream-registration.ts';

/**
 * Agent registrations: a card template, a bundled executor and its settings, or an existing A2A
 * agent (executor `a2a-upstream`) whose card supplies skills and modes.
 */
export function agentRoutes(deps: AdminDeps, publicUrl: string): Router {
  const { admin } = deps;
  const router = Router();
  const urls = (tenantId: string, agentId: string) => {
    const base = `${publicUrl}${agentBasePath(tenantId, agentId)}`;
    return { card: `${base}/.well-known/agent-card.json`, jsonRpc: `${base}/rpc`, rest: `${base}/rest` };
  };
  router.put('/tenants/:tenantId/agents/:agentId', async (req, res) => {
    const tenantId = pathParam(req, 'tenantId');
    const agentId = parseAdmin(slug, pathParam(req, 'agentId'));
    const raw = await readJsonBody(req, deps.bodyLimitBytes);
    const registration = isUpstreamBody(raw)
      ? await upstreamRegistration(raw, deps, publicUrl)
      : bundledRegistration(raw);
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    const agent = await admin.upsertAgent({ tenantId, id: agentId, ...registration });
    res.json({ agent: redact(agent), urls: urls(tenantId, agentId) });
  });
  router.get('/tenants/:tenantId/agents', async (req, res) => {
    const tenantId = pathParam(req, 'tenantId');
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    const agents = await admin.listAgents(tenantId);
    res.json({ agents: agents.map((agent) => ({ ...redact(agent), urls: urls(tenantId, agent.id) })) });
  });
  router.delete('/tenants/:tenantId/agents/:agentId', async (req, res) => {
    if (!(await admin.deleteAgent(pathParam(req, 'tenantId'), pathParam(req, 'agentId'))))
      throw adminNotFound('agent');
    res.json({});
  });
  return router;
}

function bundledRegistration(raw: unknown) {
  const body = parseAdmin(agentBody, raw ?? {});
  if (!findBundledAgent(body.executor)) {
    throw adminInvalid(`unknown executor ${body.executor}`, [
      {
        field: 'executor',
        description: 'must name a bundled agent (echo, invoice-reconciler, booking, slow) or a2a-upstream',
      },
    ]);
  }
  return { card: body.card, executor: body.executor, settings: body.settings };
}
