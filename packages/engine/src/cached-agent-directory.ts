import type { AgentDirectory, AgentRegistration } from './ports.ts';

/**
 * Tenant and agent ids are slugs (the admin API's rule, apps/gateway/src/admin/admin-schemas.ts).
 * Anything else names no agent: answered without a query, and not cached, so made-up names in
 * public card URLs neither reach Postgres (a NUL byte made it raise) nor push real agents out.
 */
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export type LoadAgent = (tenantId: string, agentId: string) => Promise<AgentRegistration | null>;

/**
 * Agent registrations change rarely and are read on every request and run, so each process keeps
 * them for a short TTL. A changed registration takes effect within `ttlMs` everywhere.
 */
export class CachedAgentDirectory implements AgentDirectory {
  private readonly load: LoadAgent;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { at: number; value: Promise<AgentRegistration | null> }>();

  constructor({ load, ttlMs = 5000 }: { load: LoadAgent; ttlMs?: number }) {
    this.load = load;
    this.ttlMs = ttlMs;
  }

  getAgent(tenantId: string, agentId: string): Promise<AgentRegistration | null> {
    if (!SLUG.test(tenantId) || !SLUG.test(agentId)) return Promise.resolve(null);
    const key = `${tenantId}/${agentId}`;
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.load(tenantId, agentId);
    this.cache.set(key, { at: Date.now(), value });
    value.catch(() => this.cache.delete(key));
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value as string);
    return value;
  }
}
