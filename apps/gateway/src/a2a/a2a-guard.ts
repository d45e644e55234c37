import type { RequestHandler } from 'express';
import type { AgentRegistration } from '@switchyard/engine';
import type { AuthFailureThrottle } from '../auth/auth-failure-throttle.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { notFound } from '../http/edge-error.ts';
import { pathParam } from '../http/path-param.ts';
import { stateOf, type Binding } from '../http/request-state.ts';
import type { RequestLimiter } from '../rate-limit/request-limiter.ts';

export interface A2AGuardDeps {
  authenticator: Authenticator;
  /** StreamRegistry.revocationMark: taken before authenticating, for the request's stream slot. */
  revocationMark?: () => number;
  failures: AuthFailureThrottle;
  limiter: RequestLimiter;
  resolveAgent: (tenantId: string, agentId: string) => Promise<AgentRegistration | null>;
}

/**
 * What every A2A call passes before its binding reads the body, in this order: authenticate
 * (digest §9 rule 2), rate-limit the tenant and credential (§9 rule 7), then check that the agent
 * in the URL is the caller's. Another tenant's agent answers exactly like a missing one (§9 rule 4).
 * Mounted on `/agents/:tenantId/:agentId`.
 */
export function a2aGuard(
  binding: Binding,
  { authenticator, failures, limiter, resolveAgent, revocationMark }: A2AGuardDeps,
): RequestHandler {
  return async (req, _res, next) => {
    const state = stateOf(req);
    state.binding = binding;
    // Before the credential is checked: a revocation from here on reaches the request's stream.
    if (revocationMark) state.revocationMark = revocationMark();
    // Only lookups of keys the gateway does not know are limited; a wrong key repeated is
    // answered from memory.
    const identity = await authenticator.authenticate(req.headers, () => failures.beginLookup(req.ip));
    state.identity = identity;
    await limiter.consume(identity);
    const tenantId = pathParam(req, 'tenantId');
    const agentId = pathParam(req, 'agentId');
    const agent = tenantId === identity.caller.tenantId ? await resolveAgent(tenantId, agentId) : null;
    if (!agent) throw notFound({ tenantId, agentId });
    state.agent = agent;
    state.addLogFields({ tenantId, principal: identity.caller.principal, agentId });
    next();
  };
}
