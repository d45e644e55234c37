/**
 * Whether a tenant exists and is enabled. The gateway asks it for credentials that do not go
 * through the API-key lookup (JWT bearer tokens name their tenant in a claim), and drops an entry
 * at once when the revocation channel says the tenant was disabled; a worker asks it before it
 * starts a run (a disabled tenant's work waits, task-runner.ts) and for the tenant's own cap on
 * runs at once before it admits a take (TenantRunCap). Cached per process for `ttlMs`.
 */
export type LoadTenant = (
  tenantId: string,
) => Promise<{ disabledAt: Date | null; maxRunning?: number | null } | null>;

type LoadedTenant = Awaited<ReturnType<LoadTenant>>;

export class TenantStatus {
  readonly #load: LoadTenant;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, { at: number; tenant: Promise<LoadedTenant> }>();

  constructor({ load, ttlMs = 10_000 }: { load: LoadTenant; ttlMs?: number }) {
    this.#load = load;
    this.#ttlMs = ttlMs;
  }

  /** `maxAgeMs` (at most the TTL) asks for an answer read no longer ago than that. */
  async isActive(tenantId: string, maxAgeMs = this.#ttlMs): Promise<boolean> {
    const tenant = await this.#read(tenantId, maxAgeMs);
    return tenant !== null && tenant.disabledAt === null;
  }

  /**
   * The tenant's own cap on runs at once (TenantRunCap), as last read: null when it follows the
   * fleet's setting (or is unknown), 0 for no cap.
   */
  async runCap(tenantId: string): Promise<number | null> {
    return (await this.#read(tenantId, this.#ttlMs))?.maxRunning ?? null;
  }

  forget(tenantId?: string): void {
    if (tenantId === undefined) this.#cache.clear();
    else this.#cache.delete(tenantId);
  }

  #read(tenantId: string, maxAgeMs: number): Promise<LoadedTenant> {
    const hit = this.#cache.get(tenantId);
    if (hit && Date.now() - hit.at < Math.min(maxAgeMs, this.#ttlMs)) return hit.tenant;
    const tenant = this.#load(tenantId);
    this.#cache.set(tenantId, { at: Date.now(), tenant });
    tenant.catch(() => this.#cache.delete(tenantId));
    if (this.#cache.size > 10_000) this.#cache.delete(this.#cache.keys().next().value as string);
    return tenant;
  }
}
