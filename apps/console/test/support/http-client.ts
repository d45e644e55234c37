import { ADMIN_TOKEN, startConsoleHarness, type ConsoleHarness } from './console-harness.ts';

/** A signed-in browser session against the console, for HTTP tests: cookie + CSRF token. */
export interface Session {
  cookie: string;
  csrf: string;
}

export async function login(baseUrl: string, token = ADMIN_TOKEN): Promise<Response> {
  return fetch(`${baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl },
    body: new URLSearchParams({ token, next: '/tasks' }),
  });
}

export async function session(baseUrl: string): Promise<Session> {
  const res = await login(baseUrl);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  const page = await fetch(`${baseUrl}/queues`, { headers: { cookie, accept: 'text/html' } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!cookie || !csrf) throw new Error('login failed');
  return { cookie, csrf };
}

export function bearer(token = ADMIN_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export async function getJson<T>(
  url: string,
  headers: Record<string, string> = bearer(),
): Promise<{ status: number; body: T }> {
  const res = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  return { status: res.status, body: (await res.json()) as T };
}

/** A started console harness with a browser session signed in to it (most HTTP tests' set-up). */
export async function startSignedInConsole(): Promise<{ h: ConsoleHarness; base: string; browser: Session }> {
  const h = await startConsoleHarness();
  return { h, base: h.baseUrl, browser: await session(h.baseUrl) };
}
