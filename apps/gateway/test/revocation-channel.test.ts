import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQueueKeys } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { Redis } from 'ioredis';
import { createTestRedis, startTcpProxy } from '@switchyard/testing';
import { RevocationChannel, type Revocation } from '@switchyard/events';

const redis = createTestRedis();
const channels: RevocationChannel[] = [];
let keys = createQueueKeys(redis.prefix);
let tests = 0;

// A channel of its own per test, so one test's listeners are not another's receivers.
beforeEach(() => {
  keys = createQueueKeys(`${redis.prefix}-${++tests}`);
});
afterEach(async () => {
  await Promise.all(channels.splice(0).map((c) => c.stop()));
});
afterAll(() => redis.cleanup());

/** One gateway's channel, recording what it applied and how often it resynced. */
async function gateway(confirmTimeoutMs?: number) {
  const applied: Revocation[] = [];
  const resyncs = { count: 0 };
  const subscriber = redis.connect();
  const channel = new RevocationChannel({
    redis: redis.connect(),
    subscriber,
    keys,
    log: silentLogger(),
    apply: (r) => applied.push(r),
    resync: () => (resyncs.count += 1),
    ...(confirmTimeoutMs === undefined ? {} : { confirmTimeoutMs }),
  });
  await channel.start();
  channels.push(channel);
  return { channel, applied, resyncs, subscriber };
}

describe('RevocationChannel', () => {
  it('answers an announcement only once every gateway has applied it', async () => {
    const [a, b, c] = [await gateway(), await gateway(), await gateway()];
    for (let i = 0; i < 50; i++) {
      const revocation: Revocation = { kind: 'api-key', tenantId: 'acme', keyId: `k${i}` };
      const announced = await a.channel.announce(revocation);
      // No await in between: the other gateways must already have it, not merely be about to.
      expect([b.applied.at(-1), c.applied.at(-1)]).toEqual([revocation, revocation]);
      expect(announced).toEqual({ receivers: 3, confirmed: 3 });
    }
    expect(a.applied).toHaveLength(50);
  });

  it('applies on the announcing gateway even when nobody else listens', async () => {
    const a = await gateway();
    await a.channel.announce({ kind: 'tenant', tenantId: 'globex' });
    expect(a.applied).toEqual([{ kind: 'tenant', tenantId: 'globex' }]);
  });

  it('returns after its timeout when a receiver never acks, saying how many did', async () => {
    const a = await gateway(150);
    const silent = redis.connect();
    await silent.subscribe(keys.authChannel);
    expect(await a.channel.announce({ kind: 'tenant', tenantId: 'acme' })).toEqual({
      receivers: 2,
      confirmed: 1,
    });
  });

  it('answers within its timeout when Redis does not answer the PUBLISH (hung, or away)', async () => {
    const target = new URL(redis.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const publisher = new Redis(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: null });
    publisher.on('error', () => undefined);
    try {
      await publisher.ping();
      const applied: Revocation[] = [];
      const channel = new RevocationChannel({
        redis: publisher,
        subscriber: redis.connect(),
        keys,
        log: silentLogger(),
        apply: (r) => applied.push(r),
        resync: () => undefined,
        confirmTimeoutMs: 200,
      });
      await channel.start();
      channels.push(channel);
      proxy.freeze();
      const revocation: Revocation = { kind: 'api-key', tenantId: 'acme', keyId: 'k-hung' };
      // Applied here at once; the other gateways' cached entries expire within their TTL.
      expect(await channel.announce(revocation)).toEqual({ receivers: 0, confirmed: 0 });
      expect(applied).toEqual([revocation]);
    } finally {
      proxy.thaw();
      publisher.disconnect();
      await proxy.close();
    }
  });

  it("applies an older gateway's announcement (no id) without acking it", async () => {
    const b = await gateway();
    const listener = redis.connect();
    const heard: string[] = [];
    listener.on('message', (_channel, raw: string) => heard.push(raw));
    await listener.subscribe(keys.authChannel);
    const old = JSON.stringify({ kind: 'api-key', tenantId: 'acme', keyId: 'old' });
    await redis.connect().publish(keys.authChannel, old);
    await expect.poll(() => b.applied).toEqual([{ kind: 'api-key', tenantId: 'acme', keyId: 'old' }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual([old]);
  });

  it('ignores malformed messages and forgets everything after its subscriber reconnects', async () => {
    const b = await gateway();
    await redis.connect().publish(keys.authChannel, '{"kind":"api-key"');
    await redis.connect().publish(keys.authChannel, '{"kind":"ack"}');
    b.subscriber.disconnect(true);
    // Once when the connection is back, once more when the subscription is confirmed again.
    await expect.poll(() => b.resyncs.count).toBe(2);
    expect(b.applied).toEqual([]);
    await b.channel.announce({ kind: 'tenant', tenantId: 'acme' });
    expect(b.applied).toEqual([{ kind: 'tenant', tenantId: 'acme' }]);
  });

  it('a gateway stopping while it announces still collects the acks, without waiting out the timeout', async () => {
    const [a, b] = [await gateway(60_000), await gateway()];
    const announced = a.channel.announce({ kind: 'tenant', tenantId: 'acme' });
    const stopped = a.channel.stop();
    expect(await announced).toEqual({ receivers: 2, confirmed: 2 });
    await stopped;
    expect(b.applied).toEqual([{ kind: 'tenant', tenantId: 'acme' }]);
  });

  it('stops applying once stopped', async () => {
    const [a, b] = [await gateway(), await gateway()];
    await b.channel.stop();
    expect(await a.channel.announce({ kind: 'tenant', tenantId: 'acme' })).toEqual({
      receivers: 1,
      confirmed: 1,
    });
    expect(b.applied).toEqual([]);
  });
});
