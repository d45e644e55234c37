import type { Redis } from 'ioredis';
import type { QueueKeys } from '@switchyard/queue';
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
  private hadConnection = false;

  constructor({ subscriber, keys }: { subscriber: Redis; keys: QueueKeys }) {
    this.sub = subscriber;
    this.keys = keys;
    this.sub.on('message', (channel: string, raw: string) => {
      const hint = decodeHint(raw);
      if (!hint) return;
      for (const listener of this.watchers.get(channel) ?? []) listener(hint);
    });
    this.sub.on('ready', () => {
      if (this.hadConnection) this.broadcast('resync');
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
      // ioredis queues the command while reconnecting and re-subscribes after a reconnect.
      this.sub.subscribe(channel).catch(() => listener('resync'));
    }
    set.add(listener);
    return () => {
      const current = this.watchers.get(channel);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) {
        this.watchers.delete(channel);
        this.sub.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  /** Number of channels currently subscribed (metrics, tests). */
  get channelCount(): number {
    return this.watchers.size;
  }

  private broadcast(signal: 'resync'): void {
    for (const set of this.watchers.values()) for (const listener of set) listener(signal);
  }

  async close(): Promise<void> {
    this.watchers.clear();
    this.sub.disconnect();
  }
}
