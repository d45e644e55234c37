import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from '@switchyard/testing';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedAgent } from '../src/push/guarded-agent.ts';
import { createHostResolver } from '../src/push/resolve-host.ts';
import { checkWebhookUrl, UrlRefusedError } from '../src/push/url-policy.ts';
import { startDnsServer, type DnsTestServer } from './dns-test-server.ts';

// Webhook host names are looked up by c-ares (resolve-host.ts), not dns.lookup: getaddrinfo runs on
// libuv's 4-thread pool and cannot be abandoned, so a tenant's names in a zone whose DNS never
// answers held every thread and every other tenant's webhook to a fresh host timed out.
let dns: DnsTestServer;
let receiver: http.Server;
let port: number;
const policy = { allowCidrs: ['127.0.0.0/8'], allowHttp: true };
/** Waits that only a cancel ends: a lookup that is not cancelled outlives the test, which fails. */
const FOREVER = { timeoutMs: 120_000, queryTimeoutMs: 120_000, tries: 1 };

beforeAll(async () => {
  // hooks.healthy.test answers; any other name (*.blackhole.test) is read and never answered.
  dns = await startDnsServer({
    'hooks.healthy.test': ['127.0.0.1'],
    'hooks.dual.test': ['127.0.0.1', '::1'],
    'hooks.rebind.test': ['127.0.0.1', '10.0.0.1'],
  });
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => {
  await dns.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const post = (url: string, dispatcher: ReturnType<typeof createGuardedAgent>) =>
  request(url, { method: 'POST', body: '{}', dispatcher }).then(async (res) => {
    await res.body.dump();
    return res.statusCode;
  });

describe('host lookups for webhooks', () => {
  it('asks the injected DNS servers for A and AAAA, and returns every address', async () => {
    const resolve = createHostResolver({ timeoutMs: 5000, servers: [dns.address] });
    expect(await resolve('hooks.healthy.test')).toEqual([{ address: '127.0.0.1' }]);
    expect(await resolve('hooks.dual.test')).toEqual([{ address: '127.0.0.1' }, { address: '::1' }]);
  });

  it('maps localhost names to 127.0.0.1 and takes literal IPs as they are, asking no DNS server', async () => {
    const asked = dns.queries.length;
    const resolve = createHostResolver({ ...FOREVER, servers: [dns.address] });
    const loopback = [{ address: '127.0.0.1' }];
    expect(await resolve('localhost')).toEqual(loopback);
    expect(await resolve('localhost.')).toEqual(loopback);
    expect(await resolve('hooks.localhost')).toEqual(loopback);
    expect(await resolve('93.184.215.14')).toEqual([{ address: '93.184.215.14' }]);
    expect(await resolve('[2606:2800:21f:cb07:6820:80da:af6b:8b2c]')).toEqual([
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c' },
    ]);
    expect(dns.queries.length).toBe(asked);
  });

  it('cancels a lookup when its signal aborts', async () => {
    const resolve = createHostResolver({ ...FOREVER, servers: [dns.address] });
    const abort = new AbortController();
    const lookup = resolve('a.blackhole.test', abort.signal);
    await waitFor(() => dns.queries.includes('a.blackhole.test'), { what: 'the query at the server' });
    abort.abort();
    await expect(lookup).rejects.toMatchObject({ code: 'ECANCELLED' });
  });

  it('gives up at its budget even while the server says nothing', async () => {
    const resolve = createHostResolver({ ...FOREVER, timeoutMs: 100, servers: [dns.address] });
    await expect(resolve('b.blackhole.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });

  it('bounds the lookup at registration: a host whose DNS never answers is refused, or accepted unresolved', async () => {
    const lookup = createHostResolver({ ...FOREVER, timeoutMs: 100, servers: [dns.address] });
    await expect(checkWebhookUrl('https://c.blackhole.test/hook', policy, lookup)).rejects.toThrow(
      UrlRefusedError,
    );
    // A push config's check (its deliveries are checked again as they connect).
    await expect(
      checkWebhookUrl('https://d.blackhole.test/hook', policy, lookup, 'webhook', { acceptUnresolved: true }),
    ).resolves.toEqual([]);
  });

  it('completes while every thread of libuv’s pool is busy (what black-holed getaddrinfo calls did)', async () => {
    // A FIFO's open() for reading blocks its pool thread until a writer comes: the pool is held
    // without using any CPU, as getaddrinfo waiting on a silent DNS server held it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-'));
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const held = Array.from({ length: threads }, () => fs.promises.open(fifo, 'r'));
    try {
      await waitFor(() => threadsWaitingForAWriter() === threads, { what: 'every pool thread held' });
      const resolve = createHostResolver({ ...FOREVER, servers: [dns.address] });
      expect(await resolve('hooks.healthy.test')).toEqual([{ address: '127.0.0.1' }]);
    } finally {
      // A writer releases every blocked open(); it can open only once a reader is there.
      let writer: number | undefined;
      while (writer === undefined) {
        try {
          writer = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
        } catch {
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      for (const handle of await Promise.all(held)) await handle.close();
      fs.closeSync(writer);
      fs.rmSync(dir, { recursive: true });
    }
  });
});

/** Threads of this process blocked in a FIFO's open(), read from /proc without the pool (Linux). */
function threadsWaitingForAWriter(): number {
  return fs
    .readdirSync('/proc/self/task')
    .filter((tid) => fs.readFileSync(`/proc/self/task/${tid}/wchan`, 'utf8') === 'wait_for_partner').length;
}

describe('the guarded agent with a tenant’s black-holed DNS zone', () => {
  it('delivers to another host at once while lookups of silent names are in flight, and ends them on cancel', async () => {
    const lookups = new AbortController();
    const resolver = createHostResolver({ ...FOREVER, servers: [dns.address] });
    const agent = createGuardedAgent({
      policy,
      connectTimeoutMs: 120_000,
      resolve: (hostname) => resolver(hostname, lookups.signal),
    });
    const settled: string[] = [];
    try {
      // More silent names than libuv has pool threads.
      const silent = Array.from({ length: 8 }, (_, i) =>
        post(`http://hook${i}.blackhole.test:${port}/a`, agent).then(
          () => settled.push(`hook${i} answered`),
          (err: unknown) => settled.push(`hook${i}: ${(err as NodeJS.ErrnoException).code}`),
        ),
      );
      await waitFor(() => silent.every((_, i) => dns.queries.includes(`hook${i}.blackhole.test`)), {
        what: 'every silent lookup at the server',
      });
      expect(await post(`http://hooks.healthy.test:${port}/b`, agent)).toBe(204);
      settled.push('healthy delivered');
      lookups.abort();
      await Promise.all(silent);
      expect(settled[0]).toBe('healthy delivered');
      expect(settled.slice(1).sort()).toEqual(
        Array.from({ length: 8 }, (_, i) => `hook${i}: ECANCELLED`).sort(),
      );
    } finally {
      lookups.abort();
      await agent.close();
    }
  });

  it('still refuses a name when any address it resolves to is not allowed', async () => {
    const agent = createGuardedAgent({
      policy,
      connectTimeoutMs: 5000,
      resolve: createHostResolver({ timeoutMs: 5000, servers: [dns.address] }),
    });
    try {
      await expect(post(`http://hooks.rebind.test:${port}/c`, agent)).rejects.toThrow(
        /resolves to 10\.0\.0\.1/,
      );
    } finally {
      await agent.close();
    }
  });
});
