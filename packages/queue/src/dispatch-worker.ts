import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';

/**
 * Removes the queue's base marker when no job waits, atomically, and says whether any job waits.
 * BullMQ re-adds that marker with every job it hands out, whether or not another waits, so that
 * another blocked fetch wakes up and looks. On a queue fed one task at a time, nothing is there:
 * the next blocking wait returned at once, and a `moveToActive` found nothing, two wasted Redis
 * round trips (and Lua runs) per dispatch. Keeping the marker whenever a job waits keeps BullMQ's
 * rule that a waiting job always has one. The fetch skipped would also have learnt when the next
 * delayed job is due (a retry's runAfter): if that falls within the idle wait, the delay marker
 * BullMQ keeps for it is set again (member "1", scored with the job's due time, as BullMQ's own
 * scripts do), so the next wait ends when the job is due. A job due later needs no marker: the idle
 * wait ends first, and its fetch learns the time.
 * KEYS: marker, wait, prioritized, delayed. ARGV: when the idle wait would end (epoch ms).
 * Returns 1 while jobs wait, else 0.
 */
const CLEAR_IDLE_MARKER = `
if redis.call('LLEN', KEYS[2]) > 0 or redis.call('ZCARD', KEYS[3]) > 0 then return 1 end
redis.call('ZREM', KEYS[1], '0')
local nextDelayed = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
if nextDelayed[2] then
  local dueAt = tonumber(nextDelayed[2]) / 0x1000
  if dueAt < tonumber(ARGV[1]) then redis.call('ZADD', KEYS[1], dueAt, '1') end
end
return 0`;

interface IdleMarkerCommands {
  syClearIdleMarker(
    marker: string,
    wait: string,
    prioritized: string,
    delayed: string,
    idleWaitEndsAt: number,
  ): Promise<number>;
}

/** BullMQ's Worker, able to skip the empty fetches that follow a job taken from an idle queue. */
export class DispatchWorker extends Worker {
  /**
   * After a job was taken: true if more jobs wait. If none does, the marker that BullMQ re-added
   * is removed and the worker counts as drained, so its next blocking fetch waits for a new
   * marker straight away rather than fetching first.
   */
  async moreWaiting(connection: Redis): Promise<boolean> {
    const { marker, wait, prioritized, delayed } = this.keys;
    if (!marker || !wait || !prioritized || !delayed) return true;
    if (!('syClearIdleMarker' in connection)) {
      connection.defineCommand('syClearIdleMarker', { numberOfKeys: 4, lua: CLEAR_IDLE_MARKER });
    }
    const waiting = await (connection as Redis & IdleMarkerCommands).syClearIdleMarker(
      marker,
      wait,
      prioritized,
      delayed,
      Date.now() + (this.opts.drainDelay ?? 5) * 1000,
    );
    if (waiting > 0) return true;
    // With no job data, BullMQ's own bookkeeping marks the worker drained (and emits 'drained').
    await this.nextJobFromJobData();
    return false;
  }
}
