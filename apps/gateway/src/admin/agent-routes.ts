import { Router } from 'express';
import { bundledAgents, findBundledAgent } from '@switchyard/agents';
import { redactAgent } from '@switchyard/store';
import { UPSTREAM_EXECUTOR } from '@switchyard/upstream';
import { agentBasePath } from '../cards/card-builder.ts';
import { readJsonBody } from '../http/read-json-body.ts';
import { adminFailedPrecondition, adminInvalid, adminNotFound } from './admin-error.ts';
import type { AdminDeps } from './admin-deps.ts';
import { slugParam } from './admin-params.ts';
import { AGENT_BODY_FIELDS, agentBody, parseAdmin } from './admin-schemas.ts';
import { isUpstreamBody, upstreamRegistration } from './upstream-registration.ts';

/** Every executor a registration may name: the bundled agents the worker runs, and upstream A2A agents. */
const EXECUTORS = [...bundledAgents.map((agent) => agent.executor), UPSTREAM_EXECUTOR].join(', ');

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
    const tenantId = slugParam(req, 'tenantId');
    const agentId = slugParam(req, 'agentId');
    const raw = await readJsonBody(req, deps.bodyLimitBytes);
    refuseUnknownFields(raw);
    const registration = isUpstreamBody(raw)
      ? await upstreamRegistration(raw, deps, publicUrl)
      : bundledRegistration(raw);
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    const agent = await admin.upsertAgent({ tenantId, id: agentId, ...registration });
    res.json({ agent: redactAgent(agent), urls: urls(tenantId, agentId) });
  });
  router.get('/tenants/:tenantId/agents', async (req, res) => {
    const tenantId = slugParam(req, 'tenantId');
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    const agents = await admin.listAgents(tenantId);
    res.json({ agents: agents.map((agent) => ({ ...redactAgent(agent), urls: urls(tenantId, agent.id) })) });
  });
  // Refused while the agent has tasks that are not finished: without the registration nobody could
  // read, cancel or continue them, and an agent registered again under the id would take them over.
  router.delete('/tenants/:tenantId/agents/:agentId', async (req, res) => {
    const deleted = await admin.deleteAgent(slugParam(req, 'tenantId'), slugParam(req, 'agentId'));
    if (deleted === 'absent') throw adminNotFound('agent');
    if (deleted !== 'deleted') {
      const count = deleted.atLeast ? `at least ${deleted.liveTasks}` : String(deleted.liveTasks);
      throw adminFailedPrecondition(
        `the agent has ${count} live (unfinished) task${deleted.liveTasks === 1 ? '' : 's'}: cancel ` +
          'them, or wait for them to finish, before deleting it',
      );
    }
    res.json({});
  });
  return router;
}

/**
 * The registration's own fields only, bundled or upstream alike: the upstream schema drops what it
 * does not know, and a misspelled field (`setting`) would silently register something else.
 */
function refuseUnknownFields(raw: unknown): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
  const known: readonly string[] = AGENT_BODY_FIELDS;
  const unknown = Object.keys(raw).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    throw adminInvalid(
      `Invalid request body: ${unknown.join(', ')}`,
      unknown.map((field) => ({ field, description: 'unknown field' })),
    );
}

function bundledRegistration(raw: unknown) {
  const body = parseAdmin(agentBody, raw ?? {});
  if (!findBundledAgent(body.executor)) {
    throw adminInvalid(`unknown executor ${body.executor.slice(0, 100)}`, [
      { field: 'executor', description: `must be one of ${EXECUTORS}` },
    ]);
  }
  return { card: body.card, executor: body.executor, settings: body.settings };
}
