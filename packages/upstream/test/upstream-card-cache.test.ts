import { describe, expect, it } from 'vitest';
import { UpstreamCardCache } from '../src/upstream-client.ts';
import { credentialsFingerprint } from '../src/upstream-settings.ts';

// A worker lives for months; the card cache must not keep every upstream card it ever fetched.

const card = (url: string) => ({
  name: url,
  description: 'an upstream agent',
  version: '1.0.0',
  supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

describe('UpstreamCardCache', () => {
  it('serves a card from memory until it expires, and keeps at most its cap, oldest dropped first', async () => {
    const fetched: string[] = [];
    const fetchImpl = (async (input: string | URL | Request) => {
      const url = String(input instanceof Request ? input.url : input);
      fetched.push(url);
      return new Response(JSON.stringify(card(url)), { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const cache = new UpstreamCardCache(60_000, 3);
    const url = (k: number) => `https://agent-${k}.example/.well-known/agent-card.json`;
    await cache.get(url(1), fetchImpl);
    await cache.get(url(1), fetchImpl);
    expect(fetched).toEqual([url(1)]);
    for (let k = 2; k <= 5; k++) await cache.get(url(k), fetchImpl);
    expect(cache.size).toBe(3);
    // The first two were dropped: asking again fetches them.
    await cache.get(url(1), fetchImpl);
    expect(fetched.filter((u) => u === url(1))).toHaveLength(2);
    expect(cache.size).toBe(3);

    const expiring = new UpstreamCardCache(0, 3);
    await expiring.get(url(9), fetchImpl);
    await expiring.get(url(9), fetchImpl);
    expect(fetched.filter((u) => u === url(9))).toHaveLength(2);
    expect(expiring.size).toBe(1);
  });

  it("keeps a card per the credentials it was read with: one tenant's card never serves another", async () => {
    const readBy: string[] = [];
    const fetchAs = (who: string) =>
      (async (input: string | URL | Request) => {
        readBy.push(who);
        const url = String(input instanceof Request ? input.url : input);
        // An upstream with an endpoint per customer: each credential gets its own interface.
        return new Response(JSON.stringify(card(`${url}#${who}`)), {
          headers: { 'content-type': 'application/json' },
        });
      }) as typeof fetch;
    const cache = new UpstreamCardCache(60_000);
    const url = 'https://shared.example/.well-known/agent-card.json';
    const a = credentialsFingerprint({ scheme: 'bearer', token: 'tenant-a-token' });
    const b = credentialsFingerprint({ scheme: 'bearer', token: 'tenant-b-token' });
    expect(a).not.toBe(b);
    expect(a).not.toContain('tenant-a-token');
    const first = await cache.get(url, fetchAs('a'), a);
    const second = await cache.get(url, fetchAs('b'), b);
    const none = await cache.get(url, fetchAs('anonymous'), credentialsFingerprint(undefined));
    expect(first.supportedInterfaces[0]?.url).toBe(`${url}#a`);
    expect(second.supportedInterfaces[0]?.url).toBe(`${url}#b`);
    expect(none.supportedInterfaces[0]?.url).toBe(`${url}#anonymous`);
    await cache.get(url, fetchAs('a'), a);
    expect(readBy).toEqual(['a', 'b', 'anonymous']);
  });
});
