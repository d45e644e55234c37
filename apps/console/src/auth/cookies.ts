import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'sy_console';

/**
 * One cookie from the request header (the console sets a single cookie; no parser needed). A value
 * that is not valid percent-encoding is not one the console set: absent, as a forged one is.
 */
export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** HttpOnly: scripts never see it; SameSite=Strict: no other site's request carries it. */
export function setSessionCookie(res: Response, value: string, maxAgeMs: number, secure: boolean): void {
  res.cookie(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    maxAge: maxAgeMs,
  });
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure, path: '/' });
}
