import { createHash } from 'node:crypto';
import type { ApiKeyIdentity } from '@switchyard/store';
import type { LookupTicket } from './auth-failure-throttle.ts';

export interface ApiKeyCacheOptions {
  /** The store lookup (PostgresAdminStore.authenticateApiKey). */
  lookup: (plaintext: string) => Promise<ApiKeyIdentity | null>;
  /** How long a successful lookup is trusted, in ms. Default 10000 (the brief's ceiling). */
  ttlMs?: number;
  /** How long a failed lookup is remembered, in ms. Default 2000; 0 turns it off. */
  failureTtlMs?: number;
  /** Entries kept at most, of each kind; the oldest goes first. Default 10000. */
  maxEntries?: number;
}

/**
 * API-key lookups, kept briefly so authentication is not a query per request. A revoked key must
 * stop working at once on every replica, so revocations arrive over Redis and `revoke` drops the
 * key's entries; the generation counter keeps a lookup that was in flight during a revocation from
 * putting the revoked identity back, or from answering a request that arrived after it.
 *
 * A client retrying with a wrong or revoked key (a misconfigured deployment, a flood) would make
 * every request a Postgres query, so failures are remembered too, for a short while, and
 * concurrent lookups of one key share a query. Remembering a failure cannot lock out a new key:
 * generated keys are 256 random bits, so nobody can have tried one before it was issued. A tenant
 * that is enabled again forgets every failure (its keys failed while it was disabled).
 */
export class ApiKeyCache {
  readonly #lookup: ApiKeyCacheOptions['lookup'];
  readonly #ttlMs: number;
  readonly #failureTtlMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { identity: ApiKeyIdentity; expiresAt: number }>();
  readonly #failures = new Map<string, number>();
  readonly #inFlight = new Map<string, { generation: number; lookup: Promise<ApiKeyIdentity | null> }>();
  #generation = 0;

  constructor({ lookup, ttlMs = 10_000, failureTtlMs = 2_000, maxEntries = 10_000 }: ApiKeyCacheOptions) {
    this.#lookup = lookup;
    this.#ttlMs = ttlMs;
    this.#failureTtlMs = failureTtlMs;
    this.#maxEntries = maxEntries;
  }

  /**
   * `beginLookup` runs only when the store must be asked; it may throw to refuse the request, and
   * its ticket hears whether the key was unknown (AuthFailureThrottle).
   */
  async authenticate(plaintext: string, beginLookup?: () => LookupTicket): Promise<ApiKeyIdentity | null> {
    // Keyed by a digest so the maps never hold key material.
    const digest = createHash('sha256').update(plaintext, 'utf8').digest('base64url');
    const now = Date.now();
    const hit = this.#entries.get(digest);
    if (hit && hit.expiresAt > now) return hit.identity;
    if (hit) this.#entries.delete(digest);
    const failedUntil = this.#failures.get(digest);
    if (failedUntil !== undefined && failedUntil > now) return null;
    if (failedUntil !== undefined) this.#failures.delete(digest);

    const generation = this.#generation;
    const pending = this.#inFlight.get(digest);
    if (pending && pending.generation === generation) return pending.lookup;
    const ticket = beginLookup?.();
    let lookup: Promise<ApiKeyIdentity | null>;
    try {
      lookup = this.#lookup(plaintext);
    } catch (err) {
      ticket?.end(false);
      throw err;
    }
    lookup.then(
      (identity) => ticket?.end(identity === null),
      () => ticket?.end(false),
    );
    this.#inFlight.set(digest, { generation, lookup });
    try {
      const identity = await lookup;
      if (generation === this.#generation) this.#remember(digest, identity);
      return identity;
    } finally {
      if (this.#inFlight.get(digest)?.lookup === lookup) this.#inFlight.delete(digest);
    }
  }

  #remember(digest: string, identity: ApiKeyIdentity | null): void {
    const now = Date.now();
    if (identity) {
      evictOldest(this.#entries, this.#maxEntries);
      // Never past the key's own expiry: a key cached 9 s before it expired kept working 9 s more.
      const keyExpiry = identity.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
      this.#entries.set(digest, { identity, expiresAt: Math.min(now + this.#ttlMs, keyExpiry) });
    } else if (this.#failureTtlMs > 0) {
      evictOldest(this.#failures, this.#maxEntries);
      this.#failures.set(digest, now + this.#failureTtlMs);
    }
  }

  /** Drops every cached entry of the key (or of the whole tenant when only it is given). */
  revoke(target: { keyId?: string; tenantId?: string }): void {
    this.#generation += 1;
    for (const [digest, { identity }] of this.#entries) {
      const matches =
        target.keyId !== undefined ? identity.keyId === target.keyId : identity.tenantId === target.tenantId;
      if (matches) this.#entries.delete(digest);
    }
    // A tenant-wide change may be an enable: its keys, remembered as failures, work again.
    if (target.keyId === undefined) this.#failures.clear();
  }

  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#failures.clear();
  }

  /** Identities held (failures not counted). */
  get size(): number {
    return this.#entries.size;
  }
}

function evictOldest(map: Map<string, unknown>, max: number): void {
  if (map.size >= max) map.delete(map.keys().next().value as string);
}
