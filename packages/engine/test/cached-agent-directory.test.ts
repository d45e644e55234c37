import { describe, expect, it } from 'vitest';
import { CachedAgentDirectory } from '../src/cached-agent-directory.ts';
import type { AgentRegistration } from '../src/ports.ts';

// Found in review: public card URLs take any name without a credential, and names registered to
// nobody were kept in the same map as real registrations: a flood of made-up names pushed the
// real ones out, and every authenticated call then queried Postgres again.
describe('CachedAgentDirectory', () => {
  const registered = { tenantId: 'acme', id: 'echo' } as AgentRegistration;

  function directory() {
    const loads: string[] = [];
    const agents = new CachedAgentDirectory({
      ttlMs: 60_000,
      load: (tenantId, agentId) => {
        loads.push(`${tenantId}/${agentId}`);
        return Promise.resolve(tenantId === 'acme' && agentId === 'echo' ? registered : null);
      },
    });
    return { agents, loads };
  }

  it('keeps a registration through a flood of names registered to nobody', async () => {
    const { agents, loads } = directory();
    expect(await agents.getAgent('acme', 'echo')).toBe(registered);
    for (let i = 0; i < 20_000; i++) expect(await agents.getAgent('acme', `made-up-${i}`)).toBeNull();
    loads.length = 0;
    expect(await agents.getAgent('acme', 'echo')).toBe(registered);
    expect(loads).toEqual([]);
  });

  it('remembers a miss for its TTL too, so a name asked again costs no load', async () => {
    const { agents, loads } = directory();
    expect(await agents.getAgent('acme', 'nobody')).toBeNull();
    expect(await agents.getAgent('acme', 'nobody')).toBeNull();
    expect(loads).toEqual(['acme/nobody']);
  });

  it('peeks at what it holds without loading, and says undefined for what it would load', async () => {
    const { agents, loads } = directory();
    expect(agents.peekAgent('acme', 'echo')).toBeUndefined();
    await agents.getAgent('acme', 'echo');
    await agents.getAgent('acme', 'nobody');
    expect(agents.peekAgent('acme', 'echo')).toBe(registered);
    expect(agents.peekAgent('acme', 'nobody')).toBeNull();
    expect(agents.peekAgent('acme', 'Not A Slug')).toBeNull();
    expect(loads).toEqual(['acme/echo', 'acme/nobody']);
  });

  it('forgets a failed load, so the next ask tries again', async () => {
    let fail = true;
    const agents = new CachedAgentDirectory({
      load: () => (fail ? Promise.reject(new Error('store away')) : Promise.resolve(registered)),
    });
    await expect(agents.getAgent('acme', 'echo')).rejects.toThrow('store away');
    fail = false;
    expect(await agents.getAgent('acme', 'echo')).toBe(registered);
  });
});
