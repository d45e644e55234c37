import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort, sleep } from './free-port.ts';

const REDIS_SERVER = process.env.CHAOS_REDIS_SERVER ?? '/usr/bin/redis-server';

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

export function hasRedisServer(): boolean {
  return existsSync(REDIS_SERVER);
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    await waitForPing(url);
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

async function waitForPing(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`redis-server on ${url} did not start`, { cause: err });
      await sleep(50);
    } finally {
      client.disconnect();
    }
  }
}
