import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';

/** Debian's redis-server, for tests and fault runs that need a Redis of their own. */
const REDIS_SERVER = process.env.CHAOS_REDIS_SERVER ?? '/usr/bin/redis-server';

export function hasRedisServer(): boolean {
  return existsSync(REDIS_SERVER);
}

/**
 * A redis-server on `port` that keeps nothing on disk: what a test may reconfigure, freeze or
 * restart without touching the Redis every other test shares. Wait for it with waitForRedis.
 */
export function spawnRedisServer(port: number): ChildProcess {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn(REDIS_SERVER, [...args, '--loglevel', 'warning'], { stdio: 'ignore' });
  // A spawn that fails (not executable) ends the child: waitForRedis reports it.
  child.on('error', () => undefined);
  return child;
}

/**
 * Resolves once the Redis at `url` answers PING; a connection refused meanwhile is tried again.
 * Given the `server` it waits for, it gives up as soon as that process has ended (a port taken
 * since it was picked), rather than at the timeout or by reaching another Redis on the port.
 */
export async function waitForRedis(url: string, server?: ChildProcess, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server && (server.exitCode !== null || server.signalCode !== null || server.pid === undefined))
      throw new Error(`redis-server for ${url} ended before it answered`);
    const client = new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`redis-server on ${url} did not start`, { cause: err });
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
}
