import type { Request, RequestHandler, Response } from 'express';
import {
  extensionSupportRequired,
  invalidRequest,
  negotiateVersion,
  parseExtensionsHeader,
  versionNotSupported,
  type VersionNegotiation,
} from '@switchyard/protocol';
import { HOP_COUNT_HEADER, MAX_HOPS, readHopCountHeader, TOO_MANY_HOPS_MESSAGE } from '@switchyard/upstream';
import type { CardTemplate } from '../cards/card-template.ts';
import { stateOf } from '../http/request-state.ts';

export type ProtocolVersion = '1.0' | '0.3';

/**
 * The versions each binding serves. A missing or empty `A2A-Version` means 0.3 (digest §6):
 * JSON-RPC serves it through the 0.3 translation (digest §13.1). HTTP+JSON does not: 0.3 REST is
 * another wire format (`/v1/…` paths, 0.3 proto-JSON bodies, digest §13.2) that no card of ours
 * advertises, so a REST call without a version is VersionNotSupported rather than a guess at 1.0.
 */
export const BINDING_VERSIONS: Readonly<Record<'jsonrpc' | 'rest', readonly ProtocolVersion[]>> = {
  jsonrpc: ['1.0', '0.3'],
  rest: ['1.0'],
};

export function negotiatedVersion(
  req: Request,
  binding: 'jsonrpc' | 'rest',
): VersionNegotiation<ProtocolVersion> {
  return negotiateVersion(requestedVersion(req), BINDING_VERSIONS[binding]);
}

/**
 * Notes the JSON-RPC request's version before anything can fail, so every error of a 0.3 request
 * (authentication included) is written in 0.3 shape.
 */
export function noteJsonRpcVersion(): RequestHandler {
  return (req, _res, next) => {
    const negotiated = negotiatedVersion(req, 'jsonrpc');
    if (negotiated.ok) stateOf(req).protocolVersion = negotiated.version;
    next();
  };
}

/**
 * A2A service parameters (digest §6). The version must be one the binding serves (a patch number
 * is ignored). `A2A-Extensions` (`X-A2A-Extensions` in 0.3, digest §13.3) activates the extensions
 * the card declares, echoed back under the same name; a required one the client did not ask for is
 * ExtensionSupportRequired. Returns the activated extension URIs.
 */
export function checkServiceParams(
  req: Request,
  res: Response,
  template: CardTemplate,
  negotiated: VersionNegotiation<ProtocolVersion>,
  binding: 'jsonrpc' | 'rest',
): string[] {
  if (!negotiated.ok) throw versionNotSupported(negotiated.requested, BINDING_VERSIONS[binding]);
  checkHopCount(req);
  const legacy = negotiated.version === '0.3';
  const declared = template.capabilities?.extensions ?? [];
  const requested = new Set(
    parseExtensionsHeader(
      req.headers['a2a-extensions'] ?? (legacy ? req.headers['x-a2a-extensions'] : undefined),
    ),
  );
  const missing = declared.filter((e) => e.required === true && !requested.has(e.uri)).map((e) => e.uri);
  if (missing.length > 0) throw extensionSupportRequired(missing);
  const activated = declared.map((e) => e.uri).filter((uri) => requested.has(uri));
  if (activated.length > 0) res.set(legacy ? 'X-A2A-Extensions' : 'A2A-Extensions', activated.join(', '));
  return activated;
}

/**
 * The upstream loop guard's gateway half (packages/upstream/src/upstream-hops.ts): a request that
 * an a2a-upstream agent forwarded more than MAX_HOPS times is refused before it creates a task, so
 * a loop through agents that drop the message metadata still ends here. A header that is not a
 * count is ignored: it is not ours to judge, and the run-time check still holds.
 */
function checkHopCount(req: Request): void {
  const hops = readHopCountHeader(req.headers[HOP_COUNT_HEADER]);
  if (typeof hops === 'number' && hops > MAX_HOPS) throw invalidRequest(TOO_MANY_HOPS_MESSAGE);
}

/** `A2A-Version` from the header, else the query parameter (digest §4.2); undefined when absent. */
export function requestedVersion(req: Request): string | undefined {
  const raw = req.headers['a2a-version'];
  const header = Array.isArray(raw) ? raw.join(',') : raw;
  if (typeof header === 'string' && header.trim() !== '') return header;
  // Service parameter names are case-insensitive (digest §6), in the query as in headers.
  for (const [name, value] of new URLSearchParams(req.originalUrl.split('?')[1] ?? '')) {
    if (name.toLowerCase() === 'a2a-version') return value;
  }
  return header;
}
