import type { AgentDirectory, AgentRegistration } from './ports.ts';

/**
 * Tenant and agent ids are slugs (the admin API's rule, apps/gateway/src/admin/admin-schemas.ts).
 * Anything else names no agent: answered without a query, and not cached, so made-up names in
 * public card URLs neither reach Postgres (a NUL byte made it raise) nor push real agents out.
 */
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export type LoadAgent = (tenantId: string, agentId: string) => Promise<AgentRegistration | null>;

/** Registrations kept at most, and names found registered to nobody (kept apart, fewer). */
const MAX_AGENTS = 10_000;
const MAX_MISSES = 1_000;

type Entry = { at: number; value: Promise<AgentRegistration | null> };

/**
 * Agent registrations change rarely and are read on every request and run, so each process keeps
 * them for a short TTL. A changed registration takes effect within `ttlMs` everywhere. Names that
 * turn out to be registered to nobody are kept apart, in a smaller map: public card URLs take any
 * name without a credential, and a flood of made-up ones must push out only other misses, not the
 * registrations every authenticated call needs (each pushed out would be a query per call).
 */
export class CachedAgentDirectory implements AgentDirectory {
  private readonly load: LoadAgent;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, Entry>();
  private readonly misses = new Map<string, Entry>();
  /** The answers of settled loads, for peekAgent (a promise's value cannot be read at once). */
  private readonly settled = new WeakMap<Entry, AgentRegistration | null>();

  constructor({ load, ttlMs = 5000 }: { load: LoadAgent; ttlMs?: number }) {
    this.load = load;
    this.ttlMs = ttlMs;
  }

  peekAgent(tenantId: string, agentId: string): AgentRegistration | null | undefined {
    if (!SLUG.test(tenantId) || !SLUG.test(agentId)) return null;
    const key = `${tenantId}/${agentId}`;
    const hit = this.cache.get(key) ?? this.misses.get(key);
    if (!hit || Date.now() - hit.at >= this.ttlMs) return undefined;
    return this.settled.get(hit);
  }

  getAgent(tenantId: string, agentId: string): Promise<AgentRegistration | null> {
    if (!SLUG.test(tenantId) || !SLUG.test(agentId)) return Promise.resolve(null);
    const key = `${tenantId}/${agentId}`;
    const hit = this.cache.get(key) ?? this.misses.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    this.misses.delete(key);
    const entry: Entry = { at: Date.now(), value: this.load(tenantId, agentId) };
    this.cache.set(key, entry);
    entry.value.then(
      (agent) => {
        this.settled.set(entry, agent);
        if (agent !== null || this.cache.get(key) !== entry) return;
        this.cache.delete(key);
        this.misses.set(key, entry);
        if (this.misses.size > MAX_MISSES) this.misses.delete(this.misses.keys().next().value as string);
      },
      () => this.cache.get(key) === entry && this.cache.delete(key),
    );
    if (this.cache.size > MAX_AGENTS) this.cache.delete(this.cache.keys().next().value as string);
    return entry.value;
  }
}
