import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { freePort } from '@switchyard/testing';
import { redisAnswers } from '@switchyard/queue';
import { startOpsServer } from '../src/index.ts';

const servers: Array<{ close(): void }> = [];
afterAll(() => servers.forEach((s) => s.close()));

describe('/readyz', () => {
  it('is 503 when a required check fails, 200 when only an advisory one does', async () => {
    let checks = { postgres: true, redis: false };
    const port = await freePort();
    servers.push(await startOpsServer(port, { health: () => true, ready: async () => checks }, '127.0.0.1'));
    const advisoryPort = await freePort();
    servers.push(
      await startOpsServer(
        advisoryPort,
        { health: () => true, ready: async () => checks, advisory: ['redis'] },
        '127.0.0.1',
      ),
    );
    const probe = async (p: number) => {
      const res = await fetch(`http://127.0.0.1:${p}/readyz`);
      return { status: res.status, body: (await res.json()) as { checks: Record<string, boolean> } };
    };
    expect((await probe(port)).status).toBe(503);
    expect(await probe(advisoryPort)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { postgres: true, redis: false } },
    });
    checks = { postgres: false, redis: true };
    expect((await probe(advisoryPort)).status).toBe(503);
  });
});

/** Whether this machine can listen on the IPv6 loopback (containers may have IPv6 off). */
async function hasIpv6Loopback(): Promise<boolean> {
  const probe = net.createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}
const ipv6Loopback = await hasIpv6Loopback();

describe('startOpsServer without a host', () => {
  it.skipIf(!ipv6Loopback)(
    'answers on IPv6 and IPv4 alike, for IPv6-only clusters and IPv4 ones',
    async () => {
      const port = await freePort();
      servers.push(await startOpsServer(port, { health: () => true, ready: async () => ({}) }));
      for (const host of ['[::1]', '127.0.0.1']) {
        const res = await fetch(`http://${host}:${port}/healthz`);
        expect(res.status, host).toBe(200);
      }
    },
  );
});

describe('redisAnswers', () => {
  it('answers false at once for a connection that lost Redis, where a PING would wait for it', async () => {
    // As the BullMQ connection: commands wait for a reconnect however long it takes.
    const away = new Redis({ port: await freePort(), maxRetriesPerRequest: null, lazyConnect: true });
    away.connect().catch(() => undefined);
    try {
      expect(await redisAnswers(away, 500)).toBe(false);
    } finally {
      away.disconnect();
    }
    const up = new Redis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
    try {
      await up.ping();
      expect(await redisAnswers(up)).toBe(true);
    } finally {
      up.disconnect();
    }
  });
});
