import { afterAll, describe, expect, it } from 'vitest';
import { RevocationChannel, type Revocation } from '@switchyard/events';
import { createQueueKeys } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { createTestRedis, waitFor } from '@switchyard/testing';
import { announceSeedRevocations } from '../src/auth/announce-seed-revocations.ts';

// The demo seed revokes keys (earlier generated demo keys; the development key in production).
// Gateways cache a key for up to 10 s: the seed tells the running ones, as the admin API does.
const redis = createTestRedis();
const prefix = `${redis.prefix}-seed`;
afterAll(() => redis.cleanup());

describe('announceSeedRevocations', () => {
  it('reaches the running gateways, which drop the keys at once', async () => {
    const applied: Revocation[] = [];
    const channel = new RevocationChannel({
      redis: redis.connect(),
      subscriber: redis.connect(),
      keys: createQueueKeys(prefix),
      log: silentLogger(),
      apply: (r) => applied.push(r),
      resync: () => undefined,
    });
    await channel.start();
    try {
      const revoked = [
        { tenantId: 'demo', keyId: '3f1c2b4a-0000-4000-8000-000000000001' },
        { tenantId: 'demo', keyId: '3f1c2b4a-0000-4000-8000-000000000002' },
      ];
      expect(await announceSeedRevocations({ redisUrl: redis.url, prefix, revoked })).toBe(true);
      await waitFor(() => applied.length === 2, { what: 'both revocations applied' });
      expect(applied).toEqual(revoked.map((key) => ({ kind: 'api-key', ...key })));
    } finally {
      await channel.stop();
    }
  });

  it('gives up quickly, and says so, when Redis is not there', async () => {
    const revoked = [{ tenantId: 'demo', keyId: '3f1c2b4a-0000-4000-8000-000000000003' }];
    const announced = await announceSeedRevocations({
      redisUrl: 'redis://127.0.0.1:1',
      prefix,
      revoked,
      timeoutMs: 500,
    });
    expect(announced).toBe(false);
  });

  it('needs no Redis when nothing was revoked', async () => {
    expect(await announceSeedRevocations({ redisUrl: 'redis://127.0.0.1:1', prefix, revoked: [] })).toBe(
      true,
    );
  });
});
