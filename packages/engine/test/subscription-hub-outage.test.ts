import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { encodeHint, SubscriptionHub, type HintListener } from '@switchyard/events';
import { TaskState } from '@switchyard/protocol';
import { createQueueKeys, isRedisAway } from '@switchyard/queue';
import { createTestRedis, startTcpProxy, waitFor } from '@switchyard/testing';

// While its connection is away, the hub asks Redis for nothing: ioredis would hold every SUBSCRIBE
// and UNSUBSCRIBE of the outage in memory (one pair per blocking send or stream) and replay them
// all on reconnect. Back, it subscribes what is watched and drops what no longer is.

const redis = createTestRedis();
afterAll(() => redis.cleanup());

const numsub = async (client: Redis, channel: string) =>
  Number(((await client.pubsub('NUMSUB', channel)) as [string, number])[1]);

/**
 * A hub whose subscriber reaches Redis through a proxy the test can cut and restore; `cutFirst`
 * cuts it before the subscriber's first connection. `direct` is a connection around the proxy.
 */
async function hubThroughProxy({ cutFirst = false } = {}) {
  const proxy = await startTcpProxy('127.0.0.1', Number(new URL(redis.url).port || 6379));
  if (cutFirst) await proxy.cut();
  const sub = new Redis(`redis://127.0.0.1:${proxy.port}`, {
    maxRetriesPerRequest: null,
    retryStrategy: () => 50,
  });
  sub.on('error', () => undefined);
  const keys = createQueueKeys(redis.prefix);
  const hub = new SubscriptionHub({ subscriber: sub, keys });
  return { proxy, sub, keys, hub, direct: redis.connect() };
}

describe('SubscriptionHub through a Redis outage', () => {
  it('queues nothing while away, then subscribes what is watched and drops what is not', async () => {
    const { proxy, sub, keys, hub, direct } = await hubThroughProxy();
    const seen: Array<string> = [];
    const listener =
      (name: string): HintListener =>
      (hint) =>
        seen.push(hint === 'resync' ? `${name}:resync` : `${name}:${hint.seq}`);
    try {
      await waitFor(() => sub.status === 'ready');
      const before = hub.watch('acme', 'before', listener('before'));
      const gone = keys.taskChannel('acme', 'before');
      await waitFor(async () => (await numsub(direct, gone)) === 1);

      await proxy.cut();
      await waitFor(() => isRedisAway(sub));
      // An outage's worth of short watches (blocking sends that came and went), and one that stays.
      for (let i = 0; i < 100; i++) hub.watch('acme', `brief-${i}`, listener('brief'))();
      hub.watch('acme', 'during', listener('during'));
      before();
      expect((sub as unknown as { offlineQueue: { length: number } }).offlineQueue.length).toBe(0);

      await proxy.restore();
      const during = keys.taskChannel('acme', 'during');
      await waitFor(async () => (await numsub(direct, during)) === 1);
      await waitFor(async () => (await numsub(direct, gone)) === 0);
      expect(seen).toContain('during:resync');
      await direct.publish(
        during,
        encodeHint({ tenantId: 'acme', taskId: 'during', seq: 7, state: TaskState.WORKING }),
      );
      await waitFor(() => seen.includes('during:7'));
      expect(hub.channelCount).toBe(1);
    } finally {
      await hub.close();
      await proxy.close();
    }
  });

  // Found in review: the first 'ready' reconciled nothing, so a channel watched while Redis was
  // still down at start was never subscribed, and its watchers got no hints for good.
  it('subscribes what was watched before the first connection, and tells its watchers to re-read', async () => {
    const { proxy, sub, keys, hub, direct } = await hubThroughProxy({ cutFirst: true });
    const seen: string[] = [];
    try {
      await waitFor(() => isRedisAway(sub));
      hub.watch('acme', 'early', (hint) => seen.push(hint === 'resync' ? 'resync' : `seq ${hint.seq}`));
      await proxy.restore();
      const channel = keys.taskChannel('acme', 'early');
      await waitFor(async () => (await numsub(direct, channel)) === 1, {
        what: 'the early channel subscribed',
      });
      expect(seen).toContain('resync');
      await direct.publish(
        channel,
        encodeHint({ tenantId: 'acme', taskId: 'early', seq: 3, state: TaskState.WORKING }),
      );
      await waitFor(() => seen.includes('seq 3'));
    } finally {
      await hub.close();
      await proxy.close();
    }
  });
});
