import { createHash } from 'node:crypto';
import type { ApiKeyIdentity } from '@switchyard/store';

export interface ApiKeyCacheOptions {
  /** The store lookup (PostgresAdminStore.authenticateApiKey). */
  lookup: (plaintext: string) => Promise<ApiKeyIdentity | null>;
  /** How long a successful lookup is trusted, in ms. Default 10000 (the brief's ceiling). */
  ttlMs?: number;
  /** Entries kept at most; the oldest goes first. Default 10000. */
  maxEntries?: number;
}

/**
 * Successful API-key lookups, kept briefly so authentication is not a query per request. A revoked
 * key must stop working at once on every replica, so revocations arrive over Redis and `revoke`
 * drops the key's entries; the generation counter keeps a lookup that was in flight during a
 * revocation from putting the revoked identity back. Failures are not cached: a key created a
 * moment ago works at once.
 */
export class ApiKeyCache {
  readonly #lookup: ApiKeyCacheOptions['lookup'];
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { identity: ApiKeyIdentity; expiresAt: number }>();
  #generation = 0;

  constructor({ lookup, ttlMs = 10_000, maxEntries = 10_000 }: ApiKeyCacheOptions) {
    this.#lookup = lookup;
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  async authenticate(plaintext: string): Promise<ApiKeyIdentity | null> {
    // Keyed by a digest so the map never holds key material.
    const digest = createHash('sha256').update(plaintext, 'utf8').digest('base64url');
    const hit = this.#entries.get(digest);
    if (hit && hit.expiresAt > Date.now()) return hit.identity;
    if (hit) this.#entries.delete(digest);
    const generation = this.#generation;
    const identity = await this.#lookup(plaintext);
    if (identity && generation === this.#generation) {
      if (this.#entries.size >= this.#maxEntries)
        this.#entries.delete(this.#entries.keys().next().value as string);
      this.#entries.set(digest, { identity, expiresAt: Date.now() + this.#ttlMs });
    }
    return identity;
  }

  /** Drops every cached entry of the key (or of the whole tenant when only it is given). */
  revoke(target: { keyId?: string; tenantId?: string }): void {
    this.#generation += 1;
    for (const [digest, { identity }] of this.#entries) {
      const matches =
        target.keyId !== undefined ? identity.keyId === target.keyId : identity.tenantId === target.tenantId;
      if (matches) this.#entries.delete(digest);
    }
  }

  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
