import type { Redis } from 'ioredis';
import type { QueueKeys } from '@switchyard/queue';
import { encodeHint, type TaskHint } from './task-hint.ts';

/** Publishes hints after commit. A failed publish only delays subscribers (they poll the log). */
export class HintPublisher {
  private readonly redis: Redis;
  private readonly keys: QueueKeys;

  constructor({ redis, keys }: { redis: Redis; keys: QueueKeys }) {
    this.redis = redis;
    this.keys = keys;
  }

  async publish(hint: TaskHint): Promise<void> {
    await this.redis.publish(this.keys.taskChannel(hint.tenantId, hint.taskId), encodeHint(hint));
  }

  /** Wakes pushers: new deliveries are due. */
  async publishPushDue(): Promise<void> {
    await this.redis.publish(this.keys.pushChannel, '1');
  }
}
