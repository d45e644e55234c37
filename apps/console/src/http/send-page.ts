import type { Request, Response } from 'express';
import { peekAuth } from '../auth/request-auth.ts';
import type { SafeHtml } from '../html/html.ts';
import { layout, type Section } from '../html/layout.ts';

/** Renders a page in the layout; the logout form and CSRF token come from the caller's session. */
export function sendPage(
  req: Request,
  res: Response,
  {
    title,
    section,
    body,
    status = 200,
  }: { title: string; section: Section; body: SafeHtml; status?: number },
): void {
  const auth = peekAuth(req);
  const page = layout({
    title,
    section,
    body,
    csrf: auth?.kind === 'session' ? auth.csrf : '',
    signedIn: auth?.kind === 'session',
  });
  res.status(status).type('html').set('Cache-Control', 'no-store').send(page.value);
}

/**
 * A local path to go back to after an action or login; anything else becomes `fallback`. Checked
 * as the browser will resolve it: `/.//evil.example` passes a look at its first characters, but
 * resolves to `//evil.example`, another site.
 */
export function safeLocalPath(value: unknown, fallback: string): string {
  if (typeof value !== 'string' || !/^\/(?![/\\])/.test(value) || value.length > 2048) return fallback;
  const url = new URL(value, LOCAL_ORIGIN);
  if (url.origin !== LOCAL_ORIGIN || /^\/[/\\]/.test(url.pathname)) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

const LOCAL_ORIGIN = 'http://console.invalid';

/** `path` with one more query parameter (the outcome notice of an action). */
export function withParam(path: string, name: string, value: string): string {
  const url = new URL(path, LOCAL_ORIGIN);
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}${url.hash}`;
}
