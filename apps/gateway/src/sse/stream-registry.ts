import { resourceExhausted } from '@switchyard/protocol';
import type { StreamMetrics } from '@switchyard/telemetry';

/** Whose credential opened a stream: what a revocation names. */
export interface StreamOwner {
  tenantId: string;
  /** Identity.credentialId: `key:<id>` for an API key, `jwt:<tenant>:<sub>` for a token. */
  credentialId: string;
}

/** A stream's slot, taken before the stream opens (reserve), handed to `add` once it has. */
export interface StreamSlot {
  owner: StreamOwner;
  /** Gives the slot back; once, whatever happens. */
  release(): void;
  /** The registry's revocation count when the slot was taken (see closeOwnedBy). */
  readonly revocationsBefore: number;
}

/**
 * Why the registry ends a stream: `shutdown` (this gateway is stopping; the client resumes on
 * another replica) or `revoked` (the credential that opened it no longer works: an API key revoked
 * or rotated, a tenant disabled), which the stream tells its client as an error.
 */
export type StreamEnding = 'shutdown' | 'revoked';

/** How the registry ends an open stream: with the reason (a comment) and its kind. */
export type CloseStream = (reason: string, ending: StreamEnding) => void;

/**
 * Why a credential no longer works (a closing reason), or undefined while it does: asked of the
 * store for a stream whose request was authenticated before a resync (see `resynced`).
 */
export type VerifyOwner = (owner: StreamOwner) => Promise<string | undefined>;

/** Revocations remembered for streams still opening; far more than can happen in one opening. */
const MAX_REMEMBERED_REVOCATIONS = 10_000;

export interface StreamLimits {
  /** Open streams this gateway process holds at most. */
  perGateway: number;
  /** Open streams one tenant holds at most on this gateway process. */
  perTenant: number;
  /** Open streams one credential (API key, JWT subject) holds at most on this gateway process. */
  perCredential: number;
}

const UNLIMITED: StreamLimits = { perGateway: Infinity, perTenant: Infinity, perCredential: Infinity };

/** Slices of one interval's streams, beaten one slice at a time (StreamRegistry.heartbeat). */
const HEARTBEAT_SLICES = 8;

interface BeatGroup {
  timer: NodeJS.Timeout;
  slices: Set<() => void>[];
  /** Streams in all slices. */
  size: number;
}

/**
 * The SSE streams this gateway holds, so shutdown can end each with a final comment instead of
 * cutting the connection (clients then resume with Last-Event-ID on another replica), and a
 * revoked credential's streams end with it. It also keeps the SSE connection gauge and event
 * counter.
 */
export class StreamRegistry {
  readonly #open = new Map<CloseStream, StreamOwner>();
  /** Keep-alive groups by interval: one timer for all the streams of an interval. */
  readonly #beats = new Map<number, BeatGroup>();
  readonly #metrics: StreamMetrics | undefined;
  readonly #limits: StreamLimits;
  /** Streams reserved per tenant and per credential (taken before any work is accepted). */
  readonly #perTenant = new Map<string, number>();
  readonly #perCredential = new Map<string, number>();
  #reserved = 0;
  /** Set by closeAll: a stream added later is ended at once with the same reason. */
  #closing: string | undefined;
  /** Revocations so far, and the last one per credential (`c:`) or tenant (`t:`): number, reason. */
  #revocations = 0;
  readonly #revokedAt = new Map<string, { at: number; reason: string }>();
  /** The mark of the last resync: slots taken at or before it were authenticated before it. */
  #resyncMark = -1;
  #verify: VerifyOwner | undefined;
  #verifyFailed: ((err: unknown) => void) | undefined;
  /** Since the last resync, one check per credential, shared by its streams (see `resynced`). */
  readonly #verified = new Map<string, Promise<string | undefined>>();

  /**
   * The revocations' count now: a request takes it before it authenticates (a2a-guard), and its
   * stream's slot is reserved with it, so a revocation any time after the credential was checked
   * reaches the stream (revokedSince).
   */
  revocationMark(): number {
    return this.#revocations;
  }

  /**
   * Why the slot's owner was revoked since the slot's mark, if it was: a revocation that came while
   * its stream was opening (authenticated, its first item being prepared) did not see the stream.
   */
  revokedSince(slot: StreamSlot): string | undefined {
    const { owner, revocationsBefore } = slot;
    for (const key of [`c:${owner.credentialId}`, `t:${owner.tenantId}`]) {
      const revoked = this.#revokedAt.get(key);
      if (revoked && revoked.at >= revocationsBefore) return revoked.reason;
    }
    return undefined;
  }

  constructor(metrics?: StreamMetrics, limits: StreamLimits = UNLIMITED) {
    this.#metrics = metrics;
    this.#limits = limits;
  }

  /**
   * Takes a stream slot for the owner's tenant and credential, before the request creates a task or
   * subscribes, so a refused stream changes nothing. Over a limit: ResourceExhausted (HTTP 429,
   * Retry-After), as for rate limits. Call the returned function once the stream has ended. The
   * credential's own limit keeps one key (or one leaked key) from taking its tenant's every slot.
   */
  reserve(owner: StreamOwner, revocationsBefore = this.#revocations): StreamSlot {
    const { tenantId, credentialId } = owner;
    const held = this.#perTenant.get(tenantId) ?? 0;
    const heldByCredential = this.#perCredential.get(credentialId) ?? 0;
    if (this.#reserved >= this.#limits.perGateway)
      throw resourceExhausted(1, 'This gateway holds its maximum of open streams; retry shortly');
    if (held >= this.#limits.perTenant)
      throw resourceExhausted(1, 'Too many open streams for this tenant; close one or retry shortly');
    if (heldByCredential >= this.#limits.perCredential)
      throw resourceExhausted(1, 'Too many open streams for this credential; close one or retry shortly');
    this.#reserved++;
    this.#perTenant.set(tenantId, held + 1);
    this.#perCredential.set(credentialId, heldByCredential + 1);
    let released = false;
    return {
      owner,
      revocationsBefore,
      release: () => {
        if (released) return;
        released = true;
        this.#reserved--;
        decrement(this.#perTenant, tenantId);
        decrement(this.#perCredential, credentialId);
      },
    };
  }

  /**
   * Holds an open stream until the returned function is called; closeAll (`shutdown`) and
   * closeOwnedBy (`revoked`) end it with `close`. After closeAll, or a revocation of its owner
   * since its slot was taken, `close` is called at once: the stream started while the gateway was
   * stopping, or while its credential was being revoked.
   */
  add(close: CloseStream, slot: StreamSlot): () => void {
    const { owner } = slot;
    if (this.#closing !== undefined) {
      close(this.#closing, 'shutdown');
      return () => undefined;
    }
    const revoked = this.revokedSince(slot);
    if (revoked !== undefined) {
      close(revoked, 'revoked');
      return () => undefined;
    }
    this.#open.set(close, owner);
    this.#metrics?.opened();
    // Authenticated before the last resync, perhaps from a cache that missed a revocation, and
    // registered after its re-check looked: asked of the store on its own.
    if (slot.revocationsBefore <= this.#resyncMark) this.#checkLate(close, owner);
    return () => {
      if (this.#open.delete(close)) this.#metrics?.closed();
    };
  }

  /**
   * The credential caches were cleared after revocation announcements may have been missed (a
   * resync). The streams open or opening are re-checked by the caller (recheckOpenStreams); a
   * stream whose request was authenticated before now but that registers after that re-check
   * looked is checked on its own with `verify` as it registers.
   */
  resynced(verify: VerifyOwner, verifyFailed?: (err: unknown) => void): void {
    this.#resyncMark = this.#revocations++;
    this.#verify = verify;
    this.#verifyFailed = verifyFailed;
    this.#verified.clear();
  }

  /** Ends a stream registered across a resync once its credential is found revoked (`resynced`). */
  #checkLate(close: CloseStream, owner: StreamOwner): void {
    const verify = this.#verify;
    if (!verify) return;
    const key = `${owner.tenantId}\n${owner.credentialId}`;
    let check = this.#verified.get(key);
    if (!check) this.#verified.set(key, (check = verify(owner)));
    check
      .then((reason) => {
        if (reason !== undefined && this.#open.has(close)) close(reason, 'revoked');
      })
      // The store could not say (it is often away right after an outage): the stream stays.
      .catch((err: unknown) => this.#verifyFailed?.(err));
  }

  /**
   * Calls `beat` every `everyMs` until the returned function is called. One shared timer per
   * interval instead of one per stream: a stream holds no timer of its own for hours, and ten
   * thousand idle streams are one timer, not ten thousand. The streams are dealt into
   * HEARTBEAT_SLICES slices and the timer beats one slice each `everyMs / HEARTBEAT_SLICES`, so
   * ten thousand keep-alives do not hold the event loop at once (events waiting behind them). A
   * stream's first beat therefore comes up to one interval after it opens, which is all a
   * keep-alive needs.
   */
  heartbeat(everyMs: number, beat: () => void): () => void {
    let group = this.#beats.get(everyMs);
    if (!group) {
      const slices = Array.from({ length: HEARTBEAT_SLICES }, () => new Set<() => void>());
      let next = 0;
      const timer = setInterval(
        () => {
          // Moved on first: a beat that throws must not keep the timer on one slice.
          const slice = slices[next]!;
          next = (next + 1) % HEARTBEAT_SLICES;
          for (const each of slice) each();
        },
        Math.max(1, Math.floor(everyMs / HEARTBEAT_SLICES)),
      );
      // The streams' sockets keep the process alive; the timer alone must not.
      timer.unref();
      group = { timer, slices, size: 0 };
      this.#beats.set(everyMs, group);
    }
    const own = group;
    // The smallest slice, so slices stay even as streams come and go.
    const slice = own.slices.reduce((least, each) => (each.size < least.size ? each : least));
    slice.add(beat);
    own.size++;
    return () => {
      if (!slice.delete(beat)) return;
      own.size--;
      if (own.size === 0 && this.#beats.get(everyMs) === own) {
        clearInterval(own.timer);
        this.#beats.delete(everyMs);
      }
    };
  }

  /**
   * The distinct credentials and tenants of the streams open or still opening (a slot reserved,
   * not yet added), for a re-check after a resync: a stream still opening is revoked through
   * revokedSince when it registers, but only if the re-check saw its credential.
   */
  owners(): { credentialIds: Set<string>; tenantIds: Set<string> } {
    return { credentialIds: new Set(this.#perCredential.keys()), tenantIds: new Set(this.#perTenant.keys()) };
  }

  /** One event written to a stream. */
  sent(): void {
    this.#metrics?.events(1);
  }

  closeAll(reason: string): void {
    this.#closing = reason;
    for (const close of [...this.#open.keys()]) close(reason, 'shutdown');
  }

  /**
   * Ends the streams opened with a credential that no longer works: an API key revoked or rotated,
   * or every credential of a disabled tenant. A stream outlives its request, so without this a
   * revoked key would keep receiving a task's events for as long as the stream stayed open; the
   * client's resume then meets the 401. A scan of this gateway's streams: revocations are rare.
   */
  closeOwnedBy(match: { credentialId: string } | { tenantId: string }, reason: string): number {
    // Remembered for the streams still opening (add checks it): numbered, so "after my slot was
    // taken" needs no clock.
    const key = 'credentialId' in match ? `c:${match.credentialId}` : `t:${match.tenantId}`;
    this.#revokedAt.delete(key);
    if (this.#revokedAt.size >= MAX_REMEMBERED_REVOCATIONS)
      this.#revokedAt.delete(this.#revokedAt.keys().next().value!);
    this.#revokedAt.set(key, { at: this.#revocations++, reason });
    let closed = 0;
    for (const [close, owner] of [...this.#open]) {
      const matches =
        'credentialId' in match
          ? owner.credentialId === match.credentialId
          : owner.tenantId === match.tenantId;
      if (matches) {
        close(reason, 'revoked');
        closed++;
      }
    }
    return closed;
  }

  get size(): number {
    return this.#open.size;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const now = (counts.get(key) ?? 1) - 1;
  if (now === 0) counts.delete(key);
  else counts.set(key, now);
}
