import { expect } from 'vitest';
import type pg from 'pg';
import type { HttpReply } from '../support/http.ts';
import { snapshotStore } from './store-snapshot.ts';

export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
}

/** A reply, or `stream` when the gateway accepted the request and opened an event stream. */
export type ProbeReply = HttpReply & { stream: boolean };

/**
 * Sends one request exactly as given. An accepted stream is cut after its headers: fuzzing cares
 * about how requests are answered, and an open subscription would otherwise never end.
 */
export async function rawRequest({ method, url, headers, body }: RawRequest): Promise<ProbeReply> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method,
    headers,
    ...(body !== undefined && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
    signal: controller.signal,
  });
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    controller.abort();
    return { status: response.status, headers: response.headers, text: '', body: undefined, stream: true };
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed, stream: false };
}

/**
 * Sends a request and, when `judge` says it was refused, proves the store did not change
 * (ARCHITECTURE.md §3 rule 7: bad input changes nothing). Returns the judge's verdict.
 */
export async function probe(
  pool: pg.Pool,
  request: RawRequest,
  judge: (reply: ProbeReply) => 'accepted' | 'refused',
): Promise<'accepted' | 'refused'> {
  const before = await snapshotStore(pool);
  const reply = await rawRequest(request);
  const verdict = judge(reply);
  if (verdict === 'refused') {
    expect(await snapshotStore(pool), `store changed by a refused ${request.method} ${request.url}`).toEqual(
      before,
    );
  }
  return verdict;
}

/** The gateway still answers: liveness, and a plain authenticated call. */
export async function expectAlive(baseUrl: string, key: string): Promise<void> {
  expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  const list = await fetch(`${baseUrl}/agents/acme/echo/rest/tasks`, {
    headers: { 'A2A-Version': '1.0', 'X-API-Key': key },
  });
  expect(list.status).toBe(200);
}
