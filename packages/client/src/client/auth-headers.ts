import type { AgentCard } from '@switchyard/protocol';
import { mergeHeaders } from '../http/merge-headers.ts';
import { A2A_VERSION } from '../version.ts';

const DEFAULT_API_KEY_HEADER = 'X-API-Key';

/**
 * Headers of every A2A request: the version (MUST, digest §6), requested extensions, and the API
 * key in the header the card's API-key scheme names. Caller-supplied headers win, whatever the
 * letter case of their names (`a2a-version` replaces `A2A-Version`; `x-api-key` replaces the key).
 * Names come back in lower case.
 */
export function requestHeaders(
  card: AgentCard | undefined,
  options: {
    apiKey?: string | undefined;
    headers?: Record<string, string> | undefined;
    extensions?: string[] | undefined;
  },
): Record<string, string> {
  const headers: Record<string, string> = { 'A2A-Version': A2A_VERSION };
  if (options.extensions && options.extensions.length > 0)
    headers['A2A-Extensions'] = options.extensions.join(', ');
  if (options.apiKey) headers[apiKeyHeader(card)] = options.apiKey;
  return Object.fromEntries(mergeHeaders(headers, options.headers));
}

/**
 * Headers of the public card fetch: A2A-Version, and of the caller's headers only the protocol's
 * own (`A2A-*`). The card is public (digest §4.4) and may be served by another host than the
 * agent (a CDN, a registry): the caller's other headers (`Authorization`, an API key, cookies) are
 * credentials meant for the agent, and are not sent there.
 */
export function publicCardHeaders(callerHeaders: Record<string, string> | undefined): Record<string, string> {
  const protocolOnly = Object.entries(callerHeaders ?? {}).filter(([name]) => /^a2a-/i.test(name));
  return requestHeaders(undefined, { headers: Object.fromEntries(protocolOnly) });
}

function apiKeyHeader(card: AgentCard | undefined): string {
  for (const scheme of Object.values(card?.securitySchemes ?? {})) {
    const apiKey = scheme.apiKeySecurityScheme;
    if (apiKey && apiKey.location === 'header' && apiKey.name) return apiKey.name;
  }
  return DEFAULT_API_KEY_HEADER;
}
