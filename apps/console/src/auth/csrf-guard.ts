import type { Request, RequestHandler } from 'express';
import { forbidden } from '../http/http-error.ts';
import { authOf } from './request-auth.ts';
import type { SessionSigner } from './session-token.ts';

/**
 * Cross-site request forgery defence for state-changing requests made with the session cookie
 * (defence in depth; SameSite=Strict already keeps the cookie off cross-site requests):
 * the request must come from our own origin (Origin / Sec-Fetch-Site) and carry the session's
 * CSRF token (form field `_csrf` or header `X-CSRF-Token`). Bearer callers hold no ambient
 * credential and need neither.
 */
export function csrfGuard(signer: SessionSigner): RequestHandler {
  return (req, _res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    const auth = authOf(req);
    if (auth.kind === 'bearer') return next();
    assertSameOrigin(req);
    const body = req.body as Record<string, unknown> | undefined;
    const presented = req.get('x-csrf-token') ?? (typeof body?._csrf === 'string' ? body._csrf : '');
    if (!presented || !signer.csrfMatches(auth.session.sid, presented)) {
      throw forbidden('missing or invalid CSRF token; reload the page and try again');
    }
    next();
  };
}

/** Refuses a request a browser marks as coming from another site or origin. */
export function assertSameOrigin(req: Request): void {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw forbidden('cross-site request refused');
  }
  const origin = req.get('origin');
  if (origin === undefined || origin === 'null') {
    if (origin === 'null') throw forbidden('cross-origin request refused');
    return;
  }
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw forbidden('cross-origin request refused');
  }
  // req.host: the Host header, or X-Forwarded-Host from a proxy TRUST_PROXY trusts.
  if (host !== req.host) throw forbidden('cross-origin request refused');
}
