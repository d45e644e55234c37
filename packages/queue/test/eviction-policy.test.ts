import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, hasRedisServer, spawnRedisServer, waitFor, waitForRedis } from '@switchyard/testing';
import { maxmemoryPolicyOf, watchEvictionPolicy } from '../src/index.ts';

// BullMQ needs a Redis that never evicts keys; a process connecting to one that may says so in
// its own log (watchEvictionPolicy), at every connect. The policy is flipped on a redis-server of
// this test's own: the shared one serves every other test file at the same time, and a run cut
// off mid-test must not leave it evicting.
let server: ChildProcess | undefined;
let url = '';
const clients: Redis[] = [];
const connect = (options: { lazyConnect?: boolean } = {}) => {
  const c = new Redis(url, { maxRetriesPerRequest: null, ...options });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  if (!hasRedisServer()) return;
  const port = await freePort();
  server = spawnRedisServer(port);
  url = `redis://127.0.0.1:${port}`;
  await waitForRedis(url, server);
});
afterAll(() => {
  for (const c of clients) c.disconnect();
  server?.kill('SIGKILL');
});

/** Resolves after `ms`: the check's INFO reply has long come back by then on a local Redis. */
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!hasRedisServer())('watchEvictionPolicy', () => {
  it('reads the policy from a real INFO reply', async () => {
    const c = connect();
    const [, policy] = (await c.config('GET', 'maxmemory-policy')) as [string, string];
    expect(maxmemoryPolicyOf(await c.info('memory'))).toBe(policy);
    expect(maxmemoryPolicyOf('# Memory\r\nused_memory:1\r\n')).toBeUndefined();
  });

  it('says nothing of a Redis that never evicts', async () => {
    const admin = connect();
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    const heard: string[] = [];
    const c = connect({ lazyConnect: true });
    watchEvictionPolicy(c, (policy) => heard.push(policy));
    await c.connect();
    await settle();
    expect(heard).toEqual([]);
  });

  it('names the policy of a Redis that may evict, at its connect and again after a reconnect', async () => {
    const admin = connect();
    const heard: string[] = [];
    const c = connect({ lazyConnect: true });
    watchEvictionPolicy(c, (policy) => heard.push(policy));
    await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
    await c.connect();
    await waitFor(() => heard.length === 1, { what: 'the first connect to be reported' });
    expect(heard).toEqual(['volatile-lru']);
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    // Dropped by the server, as a restart or failover would: ioredis reconnects and checks again.
    await admin.client('KILL', 'ID', String(await c.client('ID')));
    await waitFor(() => heard.length === 2, { what: 'the reconnect to be reported' });
    expect(heard).toEqual(['volatile-lru', 'allkeys-lru']);
  });
});
