import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { SubscriptionHub, type HintListener } from '@switchyard/events';
import { createQueueKeys } from '@switchyard/queue';
import { describe, expect, it } from 'vitest';

// Found in review: a SUBSCRIBE that failed told only the watcher that created the channel to
// re-read (the others waited for the sweep), and one that failed late, after the channel was
// unwatched and watched again, marked the newer, successful subscription as not made: its
// UNSUBSCRIBE was then never sent, and the gateway kept the channel until the next reconnect.
function fakeSubscriber() {
  const emitter = new EventEmitter();
  const pending: Array<{ channel: string; fail: () => void; ok: () => void }> = [];
  const unsubscribed: string[] = [];
  const sub = Object.assign(emitter, {
    status: 'ready',
    subscribe: (channel: string) =>
      new Promise<void>((ok, reject) => pending.push({ channel, ok, fail: () => reject(new Error('no')) })),
    unsubscribe: async (...channels: string[]) => void unsubscribed.push(...channels),
    disconnect: () => undefined,
  });
  return { sub: sub as unknown as Redis, pending, unsubscribed };
}

const keys = createQueueKeys('hub-test');
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SubscriptionHub when a SUBSCRIBE fails', () => {
  it('tells every watcher of the channel to re-read', async () => {
    const { sub, pending } = fakeSubscriber();
    const hub = new SubscriptionHub({ subscriber: sub, keys });
    const heard: string[] = [];
    const watcher =
      (name: string): HintListener =>
      (hint) =>
        hint === 'resync' && heard.push(name);
    hub.watch('acme', 't1', watcher('first'));
    hub.watch('acme', 't1', watcher('second'));
    pending[0]!.fail();
    await tick();
    expect(heard.sort()).toEqual(['first', 'second']);
  });

  it('failing late, leaves the newer subscription of a channel watched again alone', async () => {
    const { sub, pending, unsubscribed } = fakeSubscriber();
    const hub = new SubscriptionHub({ subscriber: sub, keys });
    const heard: string[] = [];
    const unwatchFirst = hub.watch('acme', 't1', () => heard.push('first'));
    unwatchFirst();
    const unwatchSecond = hub.watch('acme', 't1', (hint) => hint === 'resync' && heard.push('second'));
    pending[1]!.ok();
    pending[0]!.fail();
    await tick();
    expect(heard).toEqual([]);
    unwatchSecond();
    // Both unwatches sent UNSUBSCRIBE: the second one's channel was still subscribed.
    expect(unsubscribed).toEqual([keys.taskChannel('acme', 't1'), keys.taskChannel('acme', 't1')]);
  });
});
