/** Where A2A cards live, relative to a base URL (digest §4.4). */
export const WELL_KNOWN_CARD_PATH = '/.well-known/agent-card.json';

/**
 * The card URL for what a user typed: a URL ending in `.json` is taken as the card itself,
 * anything else as an agent's base URL (`{PUBLIC_URL}/agents/{tenant}/{agent}` on Switchyard).
 */
export function agentCardUrl(agentUrl: string): string {
  const url = new URL(agentUrl);
  if (url.pathname.endsWith('.json')) return url.toString();
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${WELL_KNOWN_CARD_PATH}`;
  return url.toString();
}
