import { Router, type Request, type Response } from 'express';
import type { AgentRegistration } from '@switchyard/engine';
import { notFound } from '../http/edge-error.ts';
import { pathParam } from '../http/path-param.ts';
import type { CardBuilder, ServedCard } from './card-builder.ts';

export interface CardRouteDeps {
  cards: CardBuilder;
  resolveAgent: (tenantId: string, agentId: string) => Promise<AgentRegistration | null>;
  /** `tenant/agent` served at the domain root. */
  defaultAgent: string;
}

/**
 * Public agent cards (digest §4.4): no authentication, `Cache-Control: max-age` and a strong ETag,
 * 304 when the client's copy is current. Each agent's card lives under its own base path; the
 * domain-root well-known path serves the default agent's.
 */
export function cardRoutes({ cards, resolveAgent, defaultAgent }: CardRouteDeps): Router {
  const router = Router();
  const serveAgent = async (tenantId: string, agentId: string, req: Request, res: Response) => {
    const agent = await resolveAgent(tenantId, agentId);
    if (!agent) throw notFound();
    sendCard(req, res, cards.publicCard(agent));
  };
  router.get('/.well-known/agent-card.json', async (req, res) => {
    const [tenantId = '', agentId = ''] = defaultAgent.split('/');
    await serveAgent(tenantId, agentId, req, res);
  });
  router.get('/agents/:tenantId/:agentId/.well-known/agent-card.json', async (req, res) => {
    await serveAgent(pathParam(req, 'tenantId'), pathParam(req, 'agentId'), req, res);
  });
  return router;
}

export function sendCard(req: Request, res: Response, served: ServedCard): void {
  res.set({ ETag: served.etag, 'Cache-Control': 'public, max-age=300' });
  if (matchesEtag(req.headers['if-none-match'], served.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).type('application/json').send(served.json);
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
