import type { Redis } from 'ioredis';
import { isRedisAway, type QueueKeys } from '@switchyard/queue';
import { encodeHint, type TaskHint } from './task-hint.ts';

/**
 * Publishes hints after commit. A failed publish only delays subscribers (they poll the log), so
 * while the connection has lost Redis the hints are skipped, not queued: a writer never waits for
 * Redis to come back (the connection's error listener has already said that it is away).
 */
export class HintPublisher {
  private readonly redis: Redis;
  private readonly keys: QueueKeys;

  constructor({ redis, keys }: { redis: Redis; keys: QueueKeys }) {
    this.redis = redis;
    this.keys = keys;
  }

  async publish(hint: TaskHint): Promise<void> {
    if (isRedisAway(this.redis)) return;
    await this.redis.publish(this.keys.taskChannel(hint.tenantId, hint.taskId), encodeHint(hint));
  }

  /** Wakes pushers: new deliveries are due. */
  async publishPushDue(): Promise<void> {
    if (isRedisAway(this.redis)) return;
    await this.redis.publish(this.keys.pushChannel, '1');
  }
}
