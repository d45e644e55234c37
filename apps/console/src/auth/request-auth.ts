import type { Request, RequestHandler, Response } from 'express';
import { isStoreUnavailable } from '@switchyard/store';
import { unauthenticated } from '../http/http-error.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import type { Session, SessionSigner } from './session-token.ts';

/** Who is calling: a browser session (cookie + CSRF token) or an API client (bearer token). */
export type Auth = { kind: 'session'; session: Session; csrf: string } | { kind: 'bearer' };

const AUTH = Symbol('console-auth');
type WithAuth = Request & { [AUTH]?: Auth };

/** The authenticated caller of a request that passed requireAuth. */
export function authOf(req: Request): Auth {
  const auth = (req as WithAuth)[AUTH];
  if (!auth) throw new Error('authOf called on a route without requireAuth');
  return auth;
}

/** The caller when the request passed requireAuth, else undefined (login and error pages). */
export function peekAuth(req: Request): Auth | undefined {
  return (req as WithAuth)[AUTH];
}

/** The CSRF token to embed in a page's forms ('' for bearer callers, who need none). */
export function csrfOf(req: Request): string {
  const auth = authOf(req);
  return auth.kind === 'session' ? auth.csrf : '';
}

/**
 * The caller of `req` as its credentials stand now (null: no longer valid), by the same checks as
 * requireAuth: a long-lived response (an event stream) asks again while it runs.
 */
export function authenticate(req: Request, signer: SessionSigner): Auth | null {
  // Any Authorization header is the caller's explicit credential: one that is not a valid bearer
  // token (`Basic …`, `Bearer` with two words or none) is refused, never replaced by the cookie.
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    return bearer !== undefined && signer.tokenMatches(bearer) ? { kind: 'bearer' } : null;
  }
  const cookie = readCookie(req, SESSION_COOKIE);
  const session = cookie === undefined ? null : signer.verify(cookie);
  return session ? { kind: 'session', session, csrf: signer.csrfToken(session.sid) } : null;
}

/** Whether a session was signed out before its expiry (PostgresConsoleStore.isSessionEnded). */
export type IsSessionEnded = (sid: string) => Promise<boolean>;

/**
 * authenticate, and a session must not have been signed out: a cookie is signed, not stored, so
 * only this check ends a copy of it that outlived its sign-out.
 */
export async function authenticateLive(
  req: Request,
  signer: SessionSigner,
  isEnded: IsSessionEnded,
): Promise<Auth | null> {
  const auth = authenticate(req, signer);
  if (auth?.kind === 'session' && (await endedOrUnknown(isEnded, auth.session.sid))) return null;
  return auth;
}

/**
 * Whether the session was signed out. With Postgres away the answer is "no" (and said so): the
 * console is how operators look at an outage, and a signed cookie is still checked; only a
 * sign-out made elsewhere goes unseen while the store cannot be asked.
 */
async function endedOrUnknown(isEnded: IsSessionEnded, sid: string): Promise<boolean> {
  try {
    return await isEnded(sid);
  } catch (err) {
    if (isStoreUnavailable(err)) return false;
    throw err;
  }
}

/** JSON and event streams answer 401; a page request is sent to the login page and back. */
function wantsPage(req: Request): boolean {
  return (
    req.method === 'GET' &&
    !req.path.startsWith('/api/') &&
    !req.path.endsWith('/stream') &&
    (req.headers.accept ?? '').includes('text/html')
  );
}

/**
 * Every page, stream and JSON endpoint behind this refuses a caller without the admin token (as a
 * bearer header) or a valid session cookie. A wrong bearer token is refused even if a cookie is
 * also present: an explicit credential is never silently replaced by an ambient one. A session
 * signed out (on any replica) is refused as an expired one is.
 */
export function requireAuth(signer: SessionSigner, isEnded: IsSessionEnded): RequestHandler {
  return (req, res, next) => {
    authenticateLive(req, signer, isEnded).then((auth) => {
      if (!auth) return refuse(req, res);
      (req as WithAuth)[AUTH] = auth;
      next();
    }, next);
  };
}

function refuse(req: Request, res: Response): void {
  res.set('Cache-Control', 'no-store');
  if (wantsPage(req)) {
    res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
    return;
  }
  res.set('WWW-Authenticate', 'Bearer realm="switchyard-console"');
  res.status(401).json(unauthenticated('log in or send Authorization: Bearer <admin token>').toBody());
}
