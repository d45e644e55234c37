import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';

/** A Redis key prefix of its own for one test, so tests share one server without touching each other. */
export interface TestRedis {
  url: string;
  prefix: string;
  /** A fresh connection (BullMQ's settings, plus `options`); closed by `cleanup()`. */
  connect(options?: RedisOptions): Redis;
  /**
   * The roles of the Redis connections a Switchyard process holds (`switchyard-<service>-<pid>-<role>`,
   * as @switchyard/runtime names them), read from CLIENT LIST.
   */
  clientRoles(service: string, pid: number): Promise<string[]>;
  /** Deletes every key under the prefix and closes the connections handed out. */
  cleanup(): Promise<void>;
}

export function createTestRedis(): TestRedis {
  const url = process.env.REDIS_URL;
  if (!url)
    throw new Error('REDIS_URL is not set: run tests through vitest (its global setup resolves services)');
  const prefix = `sy-test-${randomBytes(5).toString('hex')}`;
  const clients: Redis[] = [];
  return {
    url,
    prefix,
    connect(options = {}) {
      const c = new Redis(url, { maxRetriesPerRequest: null, ...options });
      clients.push(c);
      return c;
    },
    async clientRoles(service, pid) {
      const c = new Redis(url);
      try {
        const list = (await c.call('CLIENT', 'LIST')) as string;
        const prefix = `switchyard-${service}-${pid}-`;
        return [...list.matchAll(/ name=(\S+)/g)]
          .map((m) => m[1]!)
          .filter((name) => name.startsWith(prefix))
          .map((name) => name.slice(prefix.length))
          .sort();
      } finally {
        c.disconnect();
      }
    },
    async cleanup() {
      const c = new Redis(url);
      try {
        let cursor = '0';
        do {
          const [next, keys] = await c.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length) await c.unlink(...keys);
        } while (cursor !== '0');
      } finally {
        c.disconnect();
        for (const client of clients) client.disconnect();
      }
    },
  };
}
