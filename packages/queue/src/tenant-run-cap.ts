import { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueKeys } from './queue-keys.ts';

/**
 * Redis's own clock, in milliseconds, for the scripts. Every worker scores slots in one shared set:
 * on each worker's own clock, one running ahead would clear the others' live slots (and the cap
 * would hold nothing), and a dead one's slots would outlive it by its skew.
 */
const REDIS_NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Takes one of a tenant's run slots for a take, when fewer than the cap are held. Slots are a
 * sorted set scored by when each lapses, so a worker that died gives its slots back once its
 * renewals stop. A take admitted is no longer parked (it may be a parked job come back).
 * KEYS: slots, parked. ARGV: how long a slot holds (ms), cap, slot member, job id, the
 * sets' lifetime (ms; only to clear away an idle tenant's keys: lapses go by the scores).
 * Returns 1 (admitted), or minus the number of the tenant's parked jobs (all slots held).
 */
const ADMIT = `${REDIS_NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('ZREM', KEYS[2], ARGV[4])
  return 1
end
return -redis.call('ZCARD', KEYS[2])`;

/**
 * Records a job, already moved to delayed, as parked for its tenant, unless a slot came free since
 * it was refused: then it is not parked and the caller promotes it (a release in between found
 * nothing parked to promote). KEYS: slots, parked. ARGV: cap, job id, its place (its
 * creation time: a tenant's parked jobs come back oldest first), the parked set's lifetime.
 * Returns 1 when a slot is free (promote it now), else 0.
 */
const PARK = `${REDIS_NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then return 1 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 0`;

/**
 * Gives a take's slot back and hands out the slots now free (lapsed ones too) to the tenant's
 * oldest parked jobs, which the caller promotes. KEYS: slots, parked. ARGV: slot member, cap.
 * Returns the parked job ids taken off the parked set.
 */
const RELEASE = `${REDIS_NOW}
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local free = tonumber(ARGV[2]) - redis.call('ZCARD', KEYS[1])
if free <= 0 then return {} end
local popped = redis.call('ZPOPMIN', KEYS[2], free)
local ids = {}
for i = 1, #popped, 2 do ids[#ids + 1] = popped[i] end
return ids`;

/** Extends held slots. KEYS: slots. ARGV: how long they hold (ms), the set's lifetime (ms), members... */
const RENEW = `${REDIS_NOW}
local lapse = now + tonumber(ARGV[1])
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], 'XX', lapse, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])`;

interface RunCapCommands {
  syCapAdmit(slots: string, parked: string, ...args: Array<string | number>): Promise<number>;
  syCapPark(slots: string, parked: string, ...args: Array<string | number>): Promise<number>;
  syCapRelease(slots: string, parked: string, ...args: Array<string | number>): Promise<string[]>;
  syCapRenew(slots: string, ...args: Array<string | number>): Promise<null>;
}

/**
 * A parked job comes back on its own after this long per job parked ahead of it, within the
 * bounds below, even if no release promotes it (a worker killed between a run's end and the
 * promotion, or slots that lapsed with their worker): the safety net re-checks a capped tenant's
 * backlog at about 1,000 / PARK_MS_PER_PARKED jobs a second, however long the backlog.
 */
const PARK_MS_PER_PARKED = 50;
const MIN_PARK_MS = 10_000;
const MAX_PARK_MS = 300_000;
/** How many times a release replaces a stale parked entry with the next (each a round trip). */
const MAX_HANDOUT_ROUNDS = 8;

export interface TenantRunCapOptions {
  /** The queue's worker: parked jobs are promoted through it. */
  queue: Parameters<typeof Job.fromId>[0];
  /** The consumer's own BullMQ connection (the scripts' keys share the queue's hash tag). */
  connection: Redis;
  keys: QueueKeys;
  /** How long a slot is held without renewal: the consumer's lock time. */
  leaseMs: number;
  /** The shortest time a parked job waits for a promotion before it comes back on its own. */
  minParkMs?: number;
}

/** One take's hold on a slot: what renewing and releasing it need. */
export interface HeldSlot {
  tenantId: string;
  member: string;
  /** The tenant's cap when the slot was taken: its release hands out the slots free under it. */
  maxRunning: number;
}

/**
 * At most a given number of runs of one tenant at once across the fleet (each take names its
 * tenant's cap: the fleet's TENANT_MAX_RUNNING or the tenant's own), so that one tenant's flood of
 * long runs cannot hold every worker slot while other tenants wait (the fair order decides who is
 * taken next, not how long a run holds its slot). A job taken while its tenant is at the cap is
 * parked: moved to BullMQ's delayed set and noted in the tenant's parked set, and promoted back
 * to waiting, with its place in the fair order, when one of the tenant's runs ends. It is
 * advisory, as the fair order is: the Postgres lease still decides who runs a task, and if Redis
 * loses these sets a tenant may briefly run more than its cap, and its parked jobs come back by
 * their own delay.
 */
export class TenantRunCap {
  readonly #options: TenantRunCapOptions;
  readonly #redis: Redis & RunCapCommands;

  constructor(options: TenantRunCapOptions) {
    this.#options = options;
    const redis = options.connection;
    if (!('syCapAdmit' in redis)) {
      redis.defineCommand('syCapAdmit', { numberOfKeys: 2, lua: ADMIT });
      redis.defineCommand('syCapPark', { numberOfKeys: 2, lua: PARK });
      redis.defineCommand('syCapRelease', { numberOfKeys: 2, lua: RELEASE });
      redis.defineCommand('syCapRenew', { numberOfKeys: 1, lua: RENEW });
    }
    this.#redis = redis as Redis & RunCapCommands;
  }

  /**
   * Takes a slot for the job's run under its tenant's cap, `maxRunning` (a positive integer), or
   * parks the job (its lock, `token`, ends with the move to delayed). Returns the slot held, or
   * null when the job was parked.
   */
  async admit(job: Job, token: string, tenantId: string, maxRunning: number): Promise<HeldSlot | null> {
    if (!Number.isInteger(maxRunning) || maxRunning < 1) {
      throw new Error(`a run cap must be a positive integer, got ${maxRunning}`);
    }
    const { keys, leaseMs } = this.#options;
    const slot = { tenantId, member: `${job.id}:${token}`, maxRunning };
    const now = Date.now();
    const admitted = await this.#redis.syCapAdmit(
      keys.tenantRunSlots(tenantId),
      keys.tenantParkedRuns(tenantId),
      leaseMs,
      maxRunning,
      slot.member,
      job.id!,
      this.#setLifetimeMs,
    );
    if (admitted === 1) return slot;
    const parkedAhead = -admitted;
    const minParkMs = this.#options.minParkMs ?? MIN_PARK_MS;
    const backIn = Math.min(
      Math.max(MAX_PARK_MS, minParkMs),
      Math.max(minParkMs, parkedAhead * PARK_MS_PER_PARKED),
    );
    // Marked for the run that takes it later (RunTaskJob.parkedAt); a mark lost to Redis only
    // leaves its wait counted as the fleet's.
    if ((job.data as { parkedAt?: number }).parkedAt === undefined)
      await job.updateData({ ...job.data, parkedAt: now }).catch(() => undefined);
    await job.moveToDelayed(now + backIn, token);
    // The job is no longer this take's: whatever fails from here, it comes back by its delay.
    try {
      const freeNow = await this.#redis.syCapPark(
        keys.tenantRunSlots(tenantId),
        keys.tenantParkedRuns(tenantId),
        maxRunning,
        job.id!,
        job.timestamp,
        this.#setLifetimeMs,
      );
      if (freeNow === 1) await this.#promote(job.id!);
    } catch {
      // Unrecorded as parked, or its promotion lost: its own delay brings it back.
    }
    return null;
  }

  /** Gives the slot back and promotes as many of the tenant's parked jobs as slots are free. */
  async release(slot: HeldSlot): Promise<void> {
    const { keys } = this.#options;
    const promote = await this.#redis.syCapRelease(
      keys.tenantRunSlots(slot.tenantId),
      keys.tenantParkedRuns(slot.tenantId),
      slot.member,
      slot.maxRunning,
    );
    await this.#handOut(slot.tenantId, promote);
  }

  /** Keeps the running takes' slots held (called with the lock renewals). */
  async renew(slots: HeldSlot[]): Promise<void> {
    const byTenant = new Map<string, string[]>();
    for (const s of slots) {
      const members = byTenant.get(s.tenantId);
      if (members) members.push(s.member);
      else byTenant.set(s.tenantId, [s.member]);
    }
    await Promise.all(
      [...byTenant].map(([tenantId, members]) =>
        this.#redis.syCapRenew(
          this.#options.keys.tenantRunSlots(tenantId),
          this.#options.leaseMs,
          this.#setLifetimeMs,
          ...members,
        ),
      ),
    );
  }

  /**
   * Promotes the parked jobs given free slots. A parked entry can be stale (its job ran while its
   * tenant had no cap, or finished after its own delay brought it back): the slot it was given
   * then goes to the tenant's next parked job, so a free slot never waits out a parked job's delay.
   */
  async #handOut(tenantId: string, jobIds: string[]): Promise<void> {
    let pending = jobIds;
    for (let round = 0; pending.length > 0 && round < MAX_HANDOUT_ROUNDS; round++) {
      const taken = await Promise.all(pending.map((id) => this.#promote(id)));
      const unused = taken.filter((t) => !t).length;
      if (unused === 0) return;
      const next = await this.#redis.zpopmin(this.#options.keys.tenantParkedRuns(tenantId), unused);
      pending = next.filter((_, i) => i % 2 === 0);
    }
  }

  /**
   * Back to waiting, at its place in the fair order. Says whether the job will use the slot it was
   * given: one no longer delayed but waiting (its own delay ran out) will; one running, finished or
   * gone will not (a running one either ran while its tenant had no cap, or is being admitted on
   * its own, and then the next parked job is only promoted one too many and parked again). When
   * Redis fails it says yes: the delays are the backstop.
   */
  async #promote(jobId: string): Promise<boolean> {
    try {
      const job = await Job.fromId(this.#options.queue, jobId);
      if (!job) return false;
      try {
        await job.promote();
        return true;
      } catch {
        const state = await job.getState();
        return state === 'waiting' || state === 'prioritized';
      }
    } catch {
      return true;
    }
  }

  /** Long enough that only a tenant idle for a while loses its (by then empty) sets. */
  get #setLifetimeMs(): number {
    return Math.max(MAX_PARK_MS * 2, this.#options.leaseMs * 4);
  }
}
