import type { Redis } from 'ioredis';
import { isRedisAway, type QueueKeys } from '@switchyard/queue';
import { decodeHint, type TaskHint } from './task-hint.ts';

export type HintListener = (hint: TaskHint | 'resync') => void;

/**
 * One Redis subscriber connection per process, multiplexed over any number of watchers (SSE
 * streams, blocking sends, running agents). A channel is subscribed while at least one watcher
 * needs it. After the connection comes back, every watcher gets 'resync': hints may have been
 * lost while it was down, so they re-read the log.
 */
export class SubscriptionHub {
  private readonly sub: Redis;
  private readonly keys: QueueKeys;
  private readonly watchers = new Map<string, Set<HintListener>>();
  /**
   * The channels asked of Redis. While the connection is away nothing is asked (ioredis would queue
   * every SUBSCRIBE and UNSUBSCRIBE of the outage in memory, one pair per blocking send or stream);
   * on reconnect this is reconciled with the watched channels.
   */
  private readonly subscribed = new Set<string>();
  private hadConnection = false;

  constructor({ subscriber, keys }: { subscriber: Redis; keys: QueueKeys }) {
    this.sub = subscriber;
    this.keys = keys;
    this.sub.on('message', (channel: string, raw: string) => {
      const hint = decodeHint(raw);
      if (!hint) return;
      for (const listener of this.watchers.get(channel) ?? []) listener(hint);
    });
    // Every 'ready', the first one too: a channel watched while the connection was still being
    // made (Redis down at start) was asked of nobody, and would stay without hints for as long as
    // anyone watches it.
    this.sub.on('ready', () => {
      const added = this.reconcile();
      if (this.hadConnection || added > 0) this.broadcast('resync');
      this.hadConnection = true;
    });
  }

  /** Returns the unwatch function. */
  watch(tenantId: string, taskId: string, listener: HintListener): () => void {
    const channel = this.keys.taskChannel(tenantId, taskId);
    let set = this.watchers.get(channel);
    if (!set) {
      set = new Set();
      this.watchers.set(channel, set);
      // While Redis is away the channel is subscribed on reconnect (reconcile), and the watcher
      // then gets 'resync' and reads the log; ioredis re-subscribes what was asked before.
      if (!isRedisAway(this.sub)) {
        this.subscribed.add(channel);
        const asked = set;
        this.sub.subscribe(channel).catch(() => {
          // Not subscribed after all: the next reconnect asks again. Only while the channel is
          // still the one this SUBSCRIBE was for: unwatched and watched again meanwhile, it has
          // a newer SUBSCRIBE of its own, which this failure must not mark as not subscribed.
          if (this.watchers.get(channel) !== asked) return;
          this.subscribed.delete(channel);
          // Everyone watching it may have missed hints, not only the first watcher.
          for (const watcher of asked) watcher('resync');
        });
      }
    }
    set.add(listener);
    return () => {
      const current = this.watchers.get(channel);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) {
        this.watchers.delete(channel);
        if (this.subscribed.has(channel) && !isRedisAway(this.sub)) {
          this.subscribed.delete(channel);
          this.sub.unsubscribe(channel).catch(() => undefined);
        }
      }
    };
  }

  /** Number of channels currently subscribed (metrics, tests). */
  get channelCount(): number {
    return this.watchers.size;
  }

  /**
   * After a (re)connect: subscribe what is watched and was not asked, drop what no one watches.
   * Returns how many channels it subscribed.
   */
  private reconcile(): number {
    const stale = [...this.subscribed].filter((channel) => !this.watchers.has(channel));
    const missing = [...this.watchers.keys()].filter((channel) => !this.subscribed.has(channel));
    for (const channel of stale) this.subscribed.delete(channel);
    for (const channel of missing) this.subscribed.add(channel);
    if (stale.length) this.sub.unsubscribe(...stale).catch(() => undefined);
    if (missing.length) this.sub.subscribe(...missing).catch(() => undefined);
    return missing.length;
  }

  private broadcast(signal: 'resync'): void {
    for (const set of this.watchers.values()) for (const listener of set) listener(signal);
  }

  async close(): Promise<void> {
    this.watchers.clear();
    this.sub.disconnect();
  }
}
