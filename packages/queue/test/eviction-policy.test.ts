import { afterAll, describe, expect, it } from 'vitest';
import { createTestRedis, waitFor } from '@switchyard/testing';
import { maxmemoryPolicyOf, watchEvictionPolicy } from '../src/index.ts';

// BullMQ needs a Redis that never evicts keys; a process connecting to one that may says so in
// its own log (watchEvictionPolicy), at every connect.
const redis = createTestRedis();
afterAll(() => redis.cleanup());

/** Resolves after `ms`: the check's INFO reply has long come back by then on a local Redis. */
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

describe('watchEvictionPolicy', () => {
  it('reads the policy from a real INFO reply', async () => {
    const c = redis.connect();
    const [, policy] = (await c.config('GET', 'maxmemory-policy')) as [string, string];
    expect(maxmemoryPolicyOf(await c.info('memory'))).toBe(policy);
    expect(maxmemoryPolicyOf('# Memory\r\nused_memory:1\r\n')).toBeUndefined();
  });

  it('says nothing of a Redis that never evicts', async () => {
    const admin = redis.connect();
    expect(await admin.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    const heard: string[] = [];
    const c = redis.connect({ lazyConnect: true });
    watchEvictionPolicy(c, (policy) => heard.push(policy));
    await c.connect();
    await settle();
    expect(heard).toEqual([]);
  });

  it('names the policy of a Redis that may evict, at its connect and again after a reconnect', async (ctx) => {
    const admin = redis.connect();
    // Without a memory limit no policy evicts anything, so the shared Redis is safe to flip for a
    // moment; with one set, the test would not touch it.
    const [, maxmemory] = (await admin.config('GET', 'maxmemory')) as [string, string];
    if (maxmemory !== '0') return ctx.skip();
    const [, original] = (await admin.config('GET', 'maxmemory-policy')) as [string, string];
    const heard: string[] = [];
    const c = redis.connect({ lazyConnect: true });
    watchEvictionPolicy(c, (policy) => heard.push(policy));
    await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
    try {
      await c.connect();
      await waitFor(() => heard.length === 1, { what: 'the first connect to be reported' });
      expect(heard).toEqual(['volatile-lru']);
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      // Dropped by the server, as a restart or failover would: ioredis reconnects and checks again.
      await admin.client('KILL', 'ID', String(await c.client('ID')));
      await waitFor(() => heard.length === 2, { what: 'the reconnect to be reported' });
      expect(heard).toEqual(['volatile-lru', 'allkeys-lru']);
    } finally {
      await admin.config('SET', 'maxmemory-policy', original);
    }
  });
});
