import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { spawnRedisServer, waitForRedis } from '@switchyard/testing';
import { freePort, sleep } from './free-port.ts';

export { hasRedisServer } from '@switchyard/testing';

/**
 * A redis-server of the run's own, without persistence: restarting it loses everything, like a
 * FLUSHALL. Faults are never injected into a shared Redis (other agents and CI use it).
 */
export interface PrivateRedis {
  url: string;
  /** The key prefix the platform must use (the Redis may be shared). */
  prefix: string;
  /** What this Redis is, for the report. */
  kind: string;
  restart(downMs: number): Promise<void>;
  flushAll(): Promise<void>;
  /**
   * SIGSTOP for `ms`, then SIGCONT: a Redis that stops answering with every connection left open
   * (a hung server, or a network that drops packets without a reset).
   */
  freeze(ms: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawnRedisServer(port);
    await waitForRedis(url, child);
  };
  const kill = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url,
    prefix: 'chaos',
    kind: `a redis-server of its own on port ${port}`,
    async restart(downMs) {
      await kill();
      await sleep(downMs);
      await start();
    },
    async flushAll() {
      const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
      try {
        await client.connect();
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
    async freeze(ms) {
      const c = child as ChildProcess | null;
      if (!c || c.exitCode !== null) return;
      c.kill('SIGSTOP');
      try {
        await sleep(ms);
      } finally {
        c.kill('SIGCONT');
      }
    },
    stop: kill,
  };
}
