import type { Request, Response } from 'express';
import {
  extensionSupportRequired,
  negotiateVersion,
  parseExtensionsHeader,
  SUPPORTED_VERSIONS,
  versionNotSupported,
} from '@switchyard/protocol';
import type { CardTemplate } from '../cards/card-template.ts';

/**
 * A2A service parameters (digest §6). `A2A-Version` comes from the header or the `A2A-Version`
 * query parameter; missing or empty means 0.3, which this 1.0-only server refuses with
 * VersionNotSupported; a patch number is ignored. `A2A-Extensions` activates the extensions the
 * card declares, echoed back in the response header; a required one the client did not ask for is
 * ExtensionSupportRequired. Returns the activated extension URIs.
 */
export function checkServiceParams(req: Request, res: Response, template: CardTemplate): string[] {
  const negotiated = negotiateVersion(versionOf(req));
  if (!negotiated.ok) throw versionNotSupported(negotiated.requested, SUPPORTED_VERSIONS);
  const declared = template.capabilities?.extensions ?? [];
  const requested = new Set(parseExtensionsHeader(req.headers['a2a-extensions']));
  const missing = declared.filter((e) => e.required === true && !requested.has(e.uri)).map((e) => e.uri);
  if (missing.length > 0) throw extensionSupportRequired(missing);
  const activated = declared.map((e) => e.uri).filter((uri) => requested.has(uri));
  if (activated.length > 0) res.set('A2A-Extensions', activated.join(', '));
  return activated;
}

function versionOf(req: Request): string | undefined {
  const raw = req.headers['a2a-version'];
  const header = Array.isArray(raw) ? raw.join(',') : raw;
  if (typeof header === 'string' && header.trim() !== '') return header;
  // Service parameter names are case-insensitive (digest §6), in the query as in headers.
  for (const [name, value] of new URLSearchParams(req.originalUrl.split('?')[1] ?? '')) {
    if (name.toLowerCase() === 'a2a-version') return value;
  }
  return header;
}
