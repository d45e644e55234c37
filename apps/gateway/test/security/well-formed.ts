import { expect } from 'vitest';
import type { HttpReply } from '../support/http.ts';

/**
 * What every refused request must look like (digest §5.4, ARCHITECTURE.md §3 rule 7): the
 * binding's error shape with a code the spec names, never a 500, never an internal detail.
 */

/** §5.2/§5.3 codes, plus -32000 for transport-only errors (auth, quota, size) that have none. */
const SPEC_RPC_CODES = new Set([
  -32700, -32600, -32601, -32602, -32000, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008,
  -32009,
]);

/** HTTP statuses a JSON-RPC error may travel with (gateway README "Errors"). */
const RPC_HTTP_STATUSES = new Set([200, 401, 404, 405, 413, 415, 429]);

/** Stack frames, runtime internals, validator and SQL error texts. */
const LEAKS = [
  /\bat .+\.(ts|js|mjs):\d+/,
  /\n\s+at /,
  /node:internal/,
  /node_modules/,
  /ZodError/,
  /invalid input syntax/i,
  /violates .* constraint/i,
  /relation "/,
  /ECONNREFUSED|EPIPE/,
  /Maximum call stack/,
];

export function expectNoLeak(text: string): void {
  for (const leak of LEAKS) expect(text, `reply leaks ${String(leak)}`).not.toMatch(leak);
}

/** An ErrorInfo-carrying `details`/`data` array (§5.1: every element is an `@type` object). */
function expectDetails(details: unknown): void {
  expect(Array.isArray(details), 'error details must be an array').toBe(true);
  for (const d of details as unknown[]) expect(d).toMatchObject({ '@type': expect.any(String) });
  const info = (details as Array<Record<string, unknown>>).find((d) =>
    String(d['@type']).endsWith('google.rpc.ErrorInfo'),
  );
  expect(info, 'error details must carry an ErrorInfo').toMatchObject({
    reason: expect.stringMatching(/^[A-Z_]+$/),
    domain: expect.any(String),
  });
}

/** A JSON-RPC reply: a result, or an error with a spec code and no Internal error. */
export function expectWellFormedRpc(reply: HttpReply): 'result' | 'error' {
  const context = `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;
  expectNoLeak(reply.text);
  expect(RPC_HTTP_STATUSES.has(reply.status), context).toBe(true);
  if (Array.isArray(reply.body)) {
    // A batch's answer (JSON-RPC 2.0 §6): a response for each of its requests, each refused.
    expect(reply.body.length, context).toBeGreaterThan(0);
    for (const each of reply.body as unknown[])
      expect(expectWellFormedRpc({ ...reply, body: each, text: JSON.stringify(each) })).toBe('error');
    return 'error';
  }
  const body = reply.body as Record<string, unknown> | undefined;
  expect(body, context).toMatchObject({ jsonrpc: '2.0' });
  const id = body?.['id'];
  expect(id === null || typeof id === 'string' || typeof id === 'number', context).toBe(true);
  if (body && 'result' in body) {
    expect(reply.status, context).toBe(200);
    expect(body).not.toHaveProperty('error');
    return 'result';
  }
  const error = body?.['error'] as Record<string, unknown> | undefined;
  expect(error, context).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
  expect(SPEC_RPC_CODES.has(error?.['code'] as number), context).toBe(true);
  const data = error?.['data'];
  // A 0.3 client (no or a 0.3 `A2A-Version`) gets 0.3's free-form `data`: one object with the reason.
  if (Array.isArray(data)) expectDetails(data);
  else expect(data, context).toMatchObject({ reason: expect.stringMatching(/^[A-Z_]+$/) });
  return 'error';
}

/** An HTTP+JSON error reply: google.rpc.Status in AIP-193 form, `code` equal to the HTTP status. */
export function expectWellFormedRestError(reply: HttpReply): void {
  const context = `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;
  expectNoLeak(reply.text);
  expect(reply.status, context).toBeGreaterThanOrEqual(400);
  expect(reply.status, context).toBeLessThan(500);
  expect(reply.body, context).toMatchObject({
    error: { code: reply.status, status: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) },
  });
  expectDetails((reply.body as { error: { details: unknown } }).error.details);
}
