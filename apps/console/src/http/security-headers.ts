import type { RequestHandler } from 'express';

/**
 * Pages carry no inline script or style (the CSP forbids both), cannot be framed, and send no
 * referrer to other origins (the tracing backend, the gateway).
 */
export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy':
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on our own form
      // POSTs, and the CSRF origin check needs the real origin. Links out carry rel=noreferrer.
      'Referrer-Policy': 'same-origin',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    next();
  };
}
