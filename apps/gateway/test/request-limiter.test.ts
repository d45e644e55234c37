import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS_CONNECTION_OPTIONS, createQueueKeys, guardCommands } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { createTestRedis, startTcpProxy } from '@switchyard/testing';
import { RequestLimiter } from '../src/rate-limit/request-limiter.ts';

// The limiter's promise (request-limiter.ts): if Redis cannot be asked, requests pass. A
// connection that is reconnecting queues commands until Redis is back, so "cannot be asked" must
// be decided at once, not after the outage.
const unreachable = new Redis('redis://127.0.0.1:1', {
  maxRetriesPerRequest: null,
  retryStrategy: () => 50,
});
unreachable.on('error', () => undefined);
afterAll(() => unreachable.disconnect());

describe('RequestLimiter without Redis', () => {
  it('lets requests through at once while its connection is not ready', async () => {
    const limiter = new RequestLimiter({
      redis: unreachable,
      keys: createQueueKeys('sy-test-limiter'),
      tenantPerSec: 1,
      keyPerSec: 1,
      log: silentLogger(),
    });
    const identity = {
      caller: { tenantId: 'acme', principal: 'alice', admin: false },
      credentialId: 'key:k',
    };
    expect(unreachable.status).not.toBe('ready');
    // Over both budgets, and none of it waits for a Redis that is not there.
    for (let i = 0; i < 3; i++) await expect(limiter.consume(identity)).resolves.toBeUndefined();
  });
});

const redis = createTestRedis();
afterAll(() => redis.cleanup());

describe('RequestLimiter with Redis lost mid-window', () => {
  it('still refuses a budget it knows is spent, though the other cannot be asked', async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const connection = redis.connect();
      await connection.ping();
      // The tenant's window opens at the first ask below and lasts a second: a run that took less
      // stayed in it.
      const began = performance.now();
      const keys = createQueueKeys(`${redis.prefix}-${attempt}`);
      const limiter = new RequestLimiter({
        redis: connection,
        keys,
        tenantPerSec: 1,
        keyPerSec: 1000,
        log: silentLogger(),
      });
      const caller = { tenantId: `t${attempt}`, principal: 'alice', admin: false };
      await limiter.consume({ caller, credentialId: 'key:first' });
      // The tenant's one request a second is spent, and this replica now knows it.
      const second = await limiter.consume({ caller, credentialId: 'key:first' }).then(
        () => null,
        (err: unknown) => err,
      );
      connection.disconnect();
      // A credential never seen needs Redis for its budget; the tenant's refusal stands.
      const refused = await limiter.consume({ caller, credentialId: 'key:second' }).then(
        () => null,
        (err: unknown) => err,
      );
      if (performance.now() - began >= 900) continue;
      expect(second).toMatchObject({ kind: 'ResourceExhausted' });
      expect(refused).toMatchObject({ kind: 'ResourceExhausted' });
      return;
    }
    throw new Error('every attempt straddled a window');
  });
});

describe('RequestLimiter when Redis stops answering', () => {
  it('lets the request through once the ask times out, rather than wait for Redis', async () => {
    // A frozen Redis (or a path that drops packets without a reset): the connection stays
    // "ready", so only the commands connection's timeout can tell the ask will not come back.
    const target = new URL(redis.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const frozen = guardCommands(new Redis(`redis://127.0.0.1:${proxy.port}`, COMMANDS_CONNECTION_OPTIONS));
    frozen.on('error', () => undefined);
    try {
      await frozen.ping();
      const limiter = new RequestLimiter({
        redis: frozen,
        keys: createQueueKeys(`${redis.prefix}-frozen`),
        tenantPerSec: 100,
        keyPerSec: 100,
        log: silentLogger(),
      });
      proxy.freeze();
      const caller = { tenantId: 'acme', principal: 'alice', admin: false };
      await expect(limiter.consume({ caller, credentialId: 'key:k' })).resolves.toBeUndefined();
      expect(frozen.status).toBe('ready');
    } finally {
      proxy.thaw();
      frozen.disconnect();
      await proxy.close();
    }
  });
});

// Found in review: a request refused by its key's budget had already taken a unit of its
// tenant's, so one key sending past its own limit spent the tenant's budget on requests that never
// ran and locked out every other key of the tenant.
describe('RequestLimiter with one key over its own budget', () => {
  it('leaves the tenant budget to the tenant\u2019s other keys', async () => {
    const connection = redis.connect();
    await connection.ping();
    try {
      for (let attempt = 0; attempt < 10; attempt++) {
        const began = performance.now();
        const limiter = new RequestLimiter({
          redis: connection,
          keys: createQueueKeys(`${redis.prefix}-noisy-${attempt}`),
          tenantPerSec: 100,
          keyPerSec: 50,
          log: silentLogger(),
        });
        const caller = { tenantId: 'acme', principal: 'alice', admin: false };
        const outcome = (credentialId: string) =>
          limiter.consume({ caller, credentialId }).then(
            () => 'passed',
            () => 'refused',
          );
        const noisy: string[] = [];
        for (let i = 0; i < 300; i++) noisy.push(await outcome('key:noisy'));
        const quiet: string[] = [];
        for (let i = 0; i < 10; i++) quiet.push(await outcome('key:quiet'));
        // All in one window of the tenant's budget, or the test says nothing.
        if (performance.now() - began >= 900) continue;
        expect(noisy.filter((o) => o === 'passed')).toHaveLength(50);
        expect(quiet).toEqual(Array(10).fill('passed'));
        return;
      }
      throw new Error('every attempt straddled a window');
    } finally {
      connection.disconnect();
    }
  });
});
