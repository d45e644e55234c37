import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createQueueKeys } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
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
