import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestRedis, startTcpProxy, waitFor } from '@switchyard/testing';
import { COMMANDS_CONNECTION_OPTIONS, guardCommands, isRedisAway } from '../src/index.ts';

// A Redis that stops answering with its connection up (frozen, or packets dropped without a
// reset): one command waits out the timeout, the rest fail at once until Redis answers again.
const redis = createTestRedis();
afterAll(() => redis.cleanup());

describe('guardCommands', () => {
  it('after one timeout fails commands unsent until a PING is answered, then sends them again', async () => {
    const target = new URL(redis.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const commands = guardCommands(new Redis(`redis://127.0.0.1:${proxy.port}`, COMMANDS_CONNECTION_OPTIONS));
    commands.on('error', () => undefined);
    const key = `${redis.prefix}:guard`;
    try {
      await commands.set(key, '0');
      proxy.freeze();
      await expect(commands.incr(key)).rejects.toThrow('Command timed out');
      expect(isRedisAway(commands)).toBe(true);
      expect(commands.status).toBe('ready');
      // Refused unsent: these never reach Redis, not even once it is back.
      const refused = await Promise.allSettled([commands.incr(key), commands.incr(key), commands.incr(key)]);
      expect(refused.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(String((refused[0] as PromiseRejectedResult).reason)).toContain('not answering');

      proxy.thaw();
      await waitFor(() => !isRedisAway(commands), { what: 'the probe to find Redis answering' });
      // The one that timed out was sent before the freeze took hold, so Redis ran it late.
      expect(await commands.get(key)).toBe('1');
      expect(await commands.incr(key)).toBe(2);
    } finally {
      proxy.thaw();
      commands.disconnect();
      await proxy.close();
    }
  });

  it('closes when the connection is ready again after a reconnect, which it must not block', async () => {
    const target = new URL(redis.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const changes: boolean[] = [];
    const commands = guardCommands(
      new Redis(`redis://127.0.0.1:${proxy.port}`, {
        ...COMMANDS_CONNECTION_OPTIONS,
        retryStrategy: () => 50,
      }),
      (open) => changes.push(open),
    );
    commands.on('error', () => undefined);
    try {
      await commands.ping();
      proxy.freeze();
      await expect(commands.ping()).rejects.toThrow('Command timed out');
      expect(isRedisAway(commands)).toBe(true);
      // The hung server is replaced: every socket drops, and the new connection's handshake (its
      // name, the ready check's INFO) goes through sendCommand while the breaker is open.
      await proxy.cut();
      proxy.thaw();
      await proxy.restore();
      await waitFor(() => commands.status === 'ready' && !isRedisAway(commands), {
        what: 'the reconnect to close the breaker',
      });
      expect(await commands.ping()).toBe('PONG');
      expect(changes).toEqual([true, false]);
    } finally {
      proxy.thaw();
      commands.disconnect();
      await proxy.close();
    }
  });
});
