import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type RunningGateway } from './support/harness.ts';
import { userMessage } from './support/messages.ts';

// Browser-based A2A clients need CORS: the preflight answered before the A2A framing and
// credential checks, and the allowed origin on every reply. Off unless CORS_ALLOW_ORIGINS is set.
const ORIGIN = 'https://app.example';
let h: Harness;
let withCors: RunningGateway;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  withCors = await h.startGateway({ CORS_ALLOW_ORIGINS: `${ORIGIN},https://other.example` });
});
afterAll(async () => {
  await h?.stop();
});

const preflight = (base: string, path: string, origin = ORIGIN) =>
  fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,x-api-key,a2a-version',
    },
  });

describe('CORS (CORS_ALLOW_ORIGINS)', () => {
  it('answers the preflight of an A2A call from an allowed origin, before any A2A check', async () => {
    const reply = await preflight(withCors.url, '/agents/acme/echo/rest/message:send');
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(reply.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/);
    expect(reply.headers.get('access-control-allow-headers')).toMatch(/A2A-Version/);
    expect(reply.headers.get('access-control-allow-methods')).toMatch(/POST/);
  });

  it('marks the real call and the public card for that origin, and exposes Retry-After', async () => {
    const sent = await fetch(`${withCors.url}/agents/acme/echo/rest/message:send`, {
      method: 'POST',
      headers: {
        Origin: ORIGIN,
        'Content-Type': 'application/json',
        'A2A-Version': '1.0',
        'X-API-Key': h.fixtures.keys.alice,
      },
      body: JSON.stringify({ message: userMessage('hi'), configuration: { returnImmediately: true } }),
    });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(sent.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    const card = await fetch(`${withCors.url}/agents/acme/echo/.well-known/agent-card.json`, {
      headers: { Origin: ORIGIN },
    });
    expect(card.status).toBe(200);
    expect(card.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('leaves a request without Origin (not a browser) to the A2A handling', async () => {
    const reply = await fetch(`${withCors.url}/agents/acme/echo/rpc`, { method: 'OPTIONS' });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST');
  });

  it('gives an origin not listed nothing to go on', async () => {
    const reply = await preflight(withCors.url, '/agents/acme/echo/rpc', 'https://evil.example');
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is off by default: no CORS headers, and a preflight is no A2A call', async () => {
    const reply = await preflight(h.url, '/agents/acme/echo/rest/message:send');
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(reply.status).not.toBe(204);
  });
});
