import { publishRevocations } from '@switchyard/events';
import { createQueueKeys, resultWithin } from '@switchyard/queue';
import { Redis } from 'ioredis';

export interface SeedRevocations {
  redisUrl: string;
  /** SWITCHYARD_REDIS_PREFIX: the revocation channel is `{prefix}:auth`. */
  prefix: string;
  revoked: ReadonlyArray<{ tenantId: string; keyId: string }>;
  /** How long Redis gets to connect and take every announcement. Default 3000 ms. */
  timeoutMs?: number;
}

/**
 * Tells the gateways and consoles running now that the demo seed revoked these keys, so a key
 * they cached stops working at once instead of when its cache entry expires (10 s). Best effort
 * and bounded: the revocations are committed already, and a Redis that is not there yet (compose
 * runs the seed before the other services) must not hold the seed up. True when published.
 */
export async function announceSeedRevocations({
  redisUrl,
  prefix,
  revoked,
  timeoutMs = 3000,
}: SeedRevocations): Promise<boolean> {
  if (revoked.length === 0) return true;
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectionName: 'switchyard-seed-demo',
  });
  // Failures are the result (false); without a listener ioredis would print each one.
  redis.on('error', () => undefined);
  try {
    const publish = async () => {
      await redis.connect();
      const announcements = revoked.map((key) => ({ kind: 'api-key' as const, ...key }));
      await publishRevocations(redis, createQueueKeys(prefix), announcements);
      return true;
    };
    return await resultWithin(publish(), timeoutMs, false);
  } finally {
    redis.disconnect();
  }
}
