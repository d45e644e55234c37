import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  createTestDatabase,
  ensureTemplateDatabase,
  resolveTestServices,
  startTcpProxy,
  type TcpProxy,
} from '@switchyard/testing';
import { sleep } from './free-port.ts';
import type { PrivatePostgres } from './private-postgres.ts';
import type { PrivateRedis } from './private-redis.ts';

/**
 * Where no Postgres or Redis binaries are installed: the shared servers behind proxies the run
 * cuts. A database and a key prefix of the run's own; a "restart" cuts every connection and
 * refuses new ones for a while (Redis also loses the run's keys, as a restart without persistence
 * does); FLUSHALL deletes the run's keys only; a Postgres freeze stops the proxy passing anything.
 * Never a fault on the shared servers themselves.
 */
export async function sharedPostgres(): Promise<PrivatePostgres> {
  if (!process.env.DATABASE_URL) {
    const services = await resolveTestServices();
    process.env.DATABASE_URL = services.databaseUrl;
    process.env.REDIS_URL ??= services.redisUrl;
  }
  await ensureTemplateDatabase();
  const db = await createTestDatabase();
  const target = new URL(db.url);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const url = new URL(db.url);
  url.host = `127.0.0.1:${proxy.port}`;
  return {
    url: url.toString(),
    kind: 'the shared server behind a proxy the run cuts (a database of its own)',
    async restart(downMs) {
      await proxy.cut();
      await sleep(downMs);
      await proxy.restore();
    },
    freeze: (ms) => frozenFor(proxy, ms),
    async stop() {
      await proxy.close();
      await db.drop();
    },
  };
}

export async function sharedRedis(): Promise<PrivateRedis> {
  const target = new URL(process.env.REDIS_URL ?? (await resolveTestServices()).redisUrl);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
  const prefix = `chaos-${randomBytes(4).toString('hex')}`;
  const flush = async () => {
    const client = new Redis(target.toString(), { maxRetriesPerRequest: 1 });
    try {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await client.unlink(...keys);
      } while (cursor !== '0');
    } finally {
      client.disconnect();
    }
  };
  return {
    url: `redis://127.0.0.1:${proxy.port}`,
    prefix,
    kind: `the shared server behind a proxy the run cuts (keys under ${prefix})`,
    async restart(downMs) {
      await proxy.cut();
      await flush();
      await sleep(downMs);
      await proxy.restore();
    },
    flushAll: flush,
    freeze: (ms) => frozenFor(proxy, ms),
    async stop() {
      await proxy.close();
      await flush();
    },
  };
}

/** Holds everything through the proxy for `ms`, every connection left open: a hung server. */
async function frozenFor(proxy: TcpProxy, ms: number): Promise<void> {
  proxy.freeze();
  try {
    await sleep(ms);
  } finally {
    proxy.thaw();
  }
}
