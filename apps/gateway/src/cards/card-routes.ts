import { Router, type Request, type Response } from 'express';
import type { AgentRegistration } from '@switchyard/engine';
import { isV03Version } from '@switchyard/protocol';
import { requestedVersion } from '../a2a/service-params.ts';
import { agentCardNotFound } from '../http/edge-error.ts';
import { pathParam } from '../http/path-param.ts';
import type { AuthFailureThrottle } from '../auth/auth-failure-throttle.ts';
import type { CardBuilder, ServedCard } from './card-builder.ts';

export interface CardRouteDeps {
  cards: CardBuilder;
  resolveAgent: (tenantId: string, agentId: string) => Promise<AgentRegistration | null>;
  /** resolveAgent's answer when it needs no store lookup, else undefined. */
  peekAgent: (tenantId: string, agentId: string) => AgentRegistration | null | undefined;
  /** `tenant/agent` served at the domain root. */
  defaultAgent: string;
  /** The card a request without `A2A-Version` gets (CARD_VERSION_WITHOUT_HEADER). */
  versionWithoutHeader: '1.0' | '0.3';
  /**
   * Store lookups of cards per client address: a name the store finds registered to nobody counts
   * as a failure, as a wrong API key does, so one address cannot make a query of every made-up
   * name it sends. Cards answered from the cache (a registration, or a miss) take no lookup.
   */
  lookups: AuthFailureThrottle;
}

/**
 * Public agent cards (digest §4.4): no authentication, `Cache-Control: max-age` and a strong ETag
 * per variant (`Vary: A2A-Version`), 304 when the client's copy is current. Each agent's card lives under its own base path; the
 * domain-root well-known path serves the default agent's.
 */
export function cardRoutes({
  cards,
  resolveAgent,
  peekAgent,
  defaultAgent,
  versionWithoutHeader,
  lookups,
}: CardRouteDeps): Router {
  const router = Router();
  const serveAgent = async (tenantId: string, agentId: string, req: Request, res: Response) => {
    let agent = peekAgent(tenantId, agentId);
    if (agent === undefined) {
      const lookup = lookups.beginLookup(req.ip);
      try {
        agent = await resolveAgent(tenantId, agentId);
      } catch (err) {
        // The store failed, not the caller: no failure is counted against its address.
        lookup.end(false);
        throw err;
      }
      lookup.end(agent === null);
    }
    if (!agent) throw agentCardNotFound(tenantId, agentId);
    res.append('Vary', 'A2A-Version');
    const v03 = wantsV03Card(req, versionWithoutHeader);
    sendCard(req, res, v03 ? cards.publicCardV03(agent) : cards.publicCard(agent));
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

/**
 * `A2A-Version: 0.3` gets the 0.3 card, and any other version the 1.0 card: the card itself tells a
 * client which versions are served. A request without the header gets the card the deployment
 * chose (CARD_VERSION_WITHOUT_HEADER). No header means 0.3 for the A2A operations (digest §6), but
 * a card fetch is plain discovery, and the official 1.0 SDKs make it without the header and
 * refuse a 0.3 card's fields (a2a-python parses it into the 1.0 protobuf message, strictly).
 */
function wantsV03Card(req: Request, withoutHeader: '1.0' | '0.3'): boolean {
  const version = requestedVersion(req);
  if (version === undefined || version.trim() === '') return withoutHeader === '0.3';
  return isV03Version(version);
}

export function sendCard(req: Request, res: Response, served: ServedCard<object>): void {
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
