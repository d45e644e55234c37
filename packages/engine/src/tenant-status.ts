/**
 * Whether a tenant exists and is enabled. The gateway asks it for credentials that do not go
 * through the API-key lookup (JWT bearer tokens name their tenant in a claim), and drops an entry
 * at once when the revocation channel says the tenant was disabled; a worker asks it before it
 * starts a run (a disabled tenant's work waits, task-runner.ts). Cached per process for `ttlMs`.
 */
export type LoadTenant = (tenantId: string) => Promise<{ disabledAt: Date | null } | null>;

export class TenantStatus {
  readonly #load: LoadTenant;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, { at: number; active: Promise<boolean> }>();

  constructor({ load, ttlMs = 10_000 }: { load: LoadTenant; ttlMs?: number }) {
    this.#load = load;
    this.#ttlMs = ttlMs;
  }

  /** `maxAgeMs` (at most the TTL) asks for an answer read no longer ago than that. */
  isActive(tenantId: string, maxAgeMs = this.#ttlMs): Promise<boolean> {
    const hit = this.#cache.get(tenantId);
    if (hit && Date.now() - hit.at < Math.min(maxAgeMs, this.#ttlMs)) return hit.active;
    const active = this.#load(tenantId).then((t) => t !== null && t.disabledAt === null);
    this.#cache.set(tenantId, { at: Date.now(), active });
    active.catch(() => this.#cache.delete(tenantId));
    if (this.#cache.size > 10_000) this.#cache.delete(this.#cache.keys().next().value as string);
    return active;
  }

  forget(tenantId?: string): void {
    if (tenantId === undefined) this.#cache.clear();
    else this.#cache.delete(tenantId);
  }
}
