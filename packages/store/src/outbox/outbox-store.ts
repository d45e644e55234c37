import type { StreamResponse } from '@switchyard/protocol';

/**
 * The push outbox (ARCHITECTURE.md §7): one push_deliveries row per (push config, event), written
 * in the event's transaction by the task store and drained by the pusher. A delivery is claimed
 * with a lock (owner + expiry) and every later write is guarded by that owner, so a pusher whose
 * lock lapsed cannot overwrite the outcome of the one that took over.
 */

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** A delivery's primary key. */
export interface DeliveryKey {
  tenantId: string;
  taskId: string;
  configId: string;
  /** The task event's seq (= the task version it announces). */
  seq: number;
}

export interface ClaimDeliveriesInput {
  /** Written to locked_by; later marks must present the same id. */
  workerId: string;
  /** Most deliveries to claim at once. */
  limit: number;
  /** How long the claim holds, in milliseconds; after it lapses another pusher may retry. */
  lockMs: number;
  /**
   * Round robin: tenants are visited in id order from the first one after this, wrapping around.
   * Pass the tenant of the previous claim's last delivery. Default '' (from the first tenant).
   */
  afterTenant?: string;
  /** The caller's caps; without them one tenant's deliveries may fill the whole batch. */
  shares?: ClaimShares;
  /**
   * Told what the claim did besides claiming: deliveries it dead-lettered instead of returning,
   * and the follow-up statements that failed after the claim committed (those never throw, so
   * without this they would pass unseen). The store has no logger; the caller's goes here.
   */
  observer?: ClaimObserver;
}

/** Hears about a claim's side work (ClaimDeliveriesInput.observer). */
export interface ClaimObserver {
  /** A claimed delivery dead-lettered unsent, with the reason recorded on it. */
  deadLettered(key: DeliveryKey, reason: string): void;
  /** A statement after the claim's commit failed; what it would have done is left to a later claim. */
  followUpFailed(step: ClaimFollowUp, err: unknown): void;
}

export type ClaimFollowUp =
  'bury deliveries whose event is gone' | 'dead-letter undecryptable' | 'park waiting';

/** What a claim may take without passing the calling pusher's per-tenant and per-host caps. */
export interface ClaimShares {
  /** Most deliveries of one tenant the caller sends at once. */
  perTenant: number;
  /** The caller's deliveries in flight by tenant: a tenant gets `perTenant` less its count. */
  inFlightByTenant: ReadonlyMap<string, number>;
  /** Most deliveries to one receiver host (`receiverHost`) the caller sends at once. */
  perHost: number;
  /**
   * The caller's deliveries in flight by receiver host: a claim takes at most `perHost` less this
   * count for a host, counting all tenants' deliveries to it in the order the tenants are visited.
   */
  inFlightByHost: ReadonlyMap<string, number>;
}

/** Where and how to POST: the push config with its secrets decrypted. */
export interface PushTarget {
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
  /** Registered by an A2A 0.3 client: its bodies take the 0.3 shape (000007). */
  wireVersion?: '0.3';
}

export interface ClaimedDelivery extends DeliveryKey {
  /** Including this one. */
  attempts: number;
  /** `${taskId}.${configId}.${seq}` (deliveryIdOf): the same on every retry, so it is the receiver's dedupe key (webhook-id). */
  deliveryId: string;
  /** The body: the event's StreamResponse. */
  payload: StreamResponse;
  config: PushTarget;
  /** Host and port of the config's URL as the per-host caps count it (receiver-host.ts). */
  receiverHost: string;
  /** The tenant's Standard Webhooks signing secret. */
  webhookSecret: string;
  /** W3C trace context of the request that created the task: the delivery span joins that trace. */
  traceContext?: { traceparent?: string; tracestate?: string };
}

export interface MarkDeliveredInput extends DeliveryKey {
  workerId: string;
  /** The receiver's HTTP status. */
  status: number;
}

export type MarkFailedInput = DeliveryKey & {
  workerId: string;
  /** Short and safe: shown in the console. Truncated to 1000 characters. */
  error: string;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
} & (
    | {
        /**
         * Due again this long after the database's now(): the claim compares next_attempt_at with
         * Postgres's clock, so a pusher whose clock drifts must not set it from its own.
         */
        retryInMs: number;
        dead?: false;
      }
    | {
        dead: true;
        /**
         * The receiver used a whole attempt budget on this one: the config's later pending
         * deliveries of the task start from at least this many attempts (the budget less one), so
         * a receiver that stays away costs its backlog one attempt each, not a budget each.
         */
        laterAttemptsFloor?: number;
      }
  );

export interface DeliveryRecord extends DeliveryKey {
  deliveryId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  lockedBy: string | null;
  lockedUntil: Date | null;
  lastError: string | null;
  lastStatus: number | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface ListDeadLettersInput {
  tenantId: string;
  /** Page size. */
  limit: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface DeadLetterPage {
  /** Newest first. */
  deliveries: DeliveryRecord[];
  /** Null on the last page. */
  nextCursor: string | null;
}

export interface OutboxStore {
  /**
   * Due deliveries, at most one in flight per (task, config), oldest event first; tenants in turn,
   * each up to its share. Returned in the order the tenants were visited.
   */
  claimDueDeliveries(input: ClaimDeliveriesInput): Promise<ClaimedDelivery[]>;
  /**
   * Hands back claimed deliveries this worker will not send now: unlocked and due again at once,
   * their attempt uncounted. Returns how many were still this worker's.
   */
  releaseDeliveries(workerId: string, keys: readonly DeliveryKey[]): Promise<number>;
  /** False when the claim is no longer this worker's (nothing changed). */
  markDelivered(input: MarkDeliveredInput): Promise<boolean>;
  /** Schedules a retry, or dead-letters with `dead: true`. False when the claim is no longer this worker's. */
  markFailed(input: MarkFailedInput): Promise<boolean>;
  listDeadLetters(input: ListDeadLettersInput): Promise<DeadLetterPage>;
  /** Sends a dead delivery again from attempt 0; false when it is not dead. */
  replayDeadLetter(key: DeliveryKey): Promise<boolean>;
  /** How many were replayed. */
  replayAllDeadLetters(tenantId: string): Promise<number>;
  /** Every delivery of a task, for the console timeline. */
  listDeliveries(tenantId: string, taskId: string): Promise<DeliveryRecord[]>;
  countPending(): Promise<number>;
  /** Age of the oldest pending delivery in milliseconds; 0 when none is pending. */
  oldestPendingAgeMs(): Promise<number>;
}

/**
 * The delivery's `webhook-id`, the same on every retry: `task.config.seq`, distinct for distinct
 * deliveries (receivers deduplicate on it). A config id is the client's and may hold any
 * character, but a header value may not (undici refuses control characters, and bytes past ASCII
 * go out as latin-1 while the signature covers UTF-8), so one with characters outside visible
 * ASCII is percent-encoded, and so is one with a `%`: the escape character, which every encoded id
 * holds and no id shown as it is does, so `a b` (`a%20b`) and `a%20b` (`a%2520b`) stay apart. Every
 * other id appears as it is. A `.` in a config id needs no escape: the task id (a UUID) holds none
 * and the seq (an integer) neither, so the first dot ends the task and the last one starts the seq.
 */
export function deliveryIdOf(key: Pick<DeliveryKey, 'taskId' | 'configId' | 'seq'>): string {
  const configId = /^[\x21-\x24\x26-\x7e]*$/.test(key.configId)
    ? key.configId
    : encodeURIComponent(key.configId);
  return `${key.taskId}.${configId}.${key.seq}`;
}
