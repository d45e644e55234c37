import { Router } from 'express';
import type { ConsoleServices } from '../console-services.ts';
import { renderLoginPage } from '../html/simple-pages.ts';
import { safeLocalPath, sendPage } from '../http/send-page.ts';
import { clearSessionCookie, readCookie, SESSION_COOKIE, setSessionCookie } from './cookies.ts';
import { assertSameOrigin } from './csrf-guard.ts';
import { authOf } from './request-auth.ts';

/** GET/POST /login (public). Logout is in protectedLoginRoutes: it needs the CSRF token. */
export function loginRoutes({ signer, config, log, reads }: ConsoleServices): Router {
  const router = Router();
  router.get('/login', async (req, res) => {
    const next = safeLocalPath(
      new URL(req.originalUrl, 'http://console.invalid').searchParams.get('next'),
      '/tasks',
    );
    const cookie = readCookie(req, SESSION_COOKIE);
    const session = cookie === undefined ? null : signer.verify(cookie);
    // Signed in already: on. A signed-out session's cookie gets the form (a redirect would loop).
    if (session && !(await reads.isSessionEnded(session.sid).catch(() => true)))
      return res.redirect(303, next);
    sendPage(req, res, { title: 'Sign in', section: 'none', body: renderLoginPage({ next }) });
  });
  router.post('/login', (req, res) => {
    // Login CSRF: a cross-site form must not sign a browser in (to an attacker's session or ours).
    assertSameOrigin(req);
    const body = req.body as Record<string, unknown> | undefined;
    const next = safeLocalPath(body?.next, '/tasks');
    const token = typeof body?.token === 'string' ? body.token : '';
    if (!token || !signer.tokenMatches(token)) {
      log.warn({ ip: req.ip }, 'console: failed login');
      return sendPage(req, res, {
        title: 'Sign in',
        section: 'none',
        status: 401,
        body: renderLoginPage({ next, error: 'That is not the admin token.' }),
      });
    }
    const { value } = signer.issue();
    setSessionCookie(res, value, config.CONSOLE_SESSION_TTL_MS, config.CONSOLE_SECURE_COOKIE);
    log.info({ ip: req.ip }, 'console: signed in');
    res.redirect(303, next);
  });
  return router;
}

/** POST /logout, behind requireAuth and the CSRF guard: the session ends on every replica. */
export function logoutRoutes({ config, reads }: ConsoleServices): Router {
  const router = Router();
  router.post('/logout', async (req, res) => {
    // Ended for every replica and every copy of the cookie, not only this browser's.
    const auth = authOf(req);
    try {
      if (auth.kind === 'session')
        await reads.endSession(auth.session.sid, new Date(auth.session.expiresAtMs));
    } finally {
      // This browser is signed out whatever the store said; an error still says the rest failed.
      clearSessionCookie(res, config.CONSOLE_SECURE_COOKIE);
    }
    res.redirect(303, '/login');
  });
  return router;
}
