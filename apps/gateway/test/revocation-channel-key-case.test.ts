import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createQueueKeys } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { createTestRedis, waitFor } from '@switchyard/testing';
import { RevocationChannel, type Revocation } from '@switchyard/events';

// Key ids are uuids; the API-key cache and the stream registry compare them as strings with the
// store's lowercase form. An announcement naming a key in capitals (an admin call passing the path
// value on, a gateway of an older version) must still revoke it everywhere.
const redis = createTestRedis();
const keys = createQueueKeys(`${redis.prefix}-case`);
const channels: RevocationChannel[] = [];
afterEach(async () => {
  await Promise.all(channels.splice(0).map((c) => c.stop()));
});
afterAll(() => redis.cleanup());

async function gateway() {
  const applied: Revocation[] = [];
  const channel = new RevocationChannel({
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    log: silentLogger(),
    apply: (r) => applied.push(r),
    resync: () => undefined,
  });
  await channel.start();
  channels.push(channel);
  return { channel, applied };
}

const KEY = '3F1C2B4A-0000-4000-8000-00000000ABCD';

describe('RevocationChannel and the case of key ids', () => {
  it('applies and announces the lowercase id on every gateway', async () => {
    const [a, b] = [await gateway(), await gateway()];
    await a.channel.announce({ kind: 'api-key', tenantId: 'acme', keyId: KEY });
    const expected = { kind: 'api-key', tenantId: 'acme', keyId: KEY.toLowerCase() };
    expect(a.applied).toEqual([expected]);
    expect(b.applied).toEqual([expected]);
  });

  it("applies an older gateway's announcement in capitals as the lowercase id", async () => {
    const a = await gateway();
    const publisher = redis.connect();
    await publisher.publish(
      keys.authChannel,
      JSON.stringify({ kind: 'api-key', tenantId: 'acme', keyId: KEY }),
    );
    await waitFor(() => a.applied.length > 0, { what: 'the revocation applied' });
    expect(a.applied).toEqual([{ kind: 'api-key', tenantId: 'acme', keyId: KEY.toLowerCase() }]);
  });
});
