import { bookingAgent, echoAgent, slowAgent } from '@switchyard/agents';
import type { PostgresAdminStore } from '@switchyard/store';

export const TRACE_EXTENSION = 'https://example.com/ext/trace/v1';
export const REQUIRED_EXTENSION = 'https://example.com/ext/required/v1';

export interface Fixtures {
  /** API keys by name: alice, bob (users of acme), boss (acme tenant admin), carol (globex user). */
  keys: { alice: string; bob: string; boss: string; carol: string };
  keyIds: { alice: string; bob: string; boss: string; carol: string };
}

/**
 * Two tenants and their agents. acme/echo declares an optional extension and extended skills;
 * acme/strict requires an extension; acme/slow streams three steps; acme/sleepy runs a minute
 * (something to cancel); acme/booking is multi-turn.
 */
export async function seedFixtures(admin: PostgresAdminStore): Promise<Fixtures> {
  await admin.createTenant({ id: 'acme', name: 'Acme' });
  await admin.createTenant({ id: 'globex', name: 'Globex' });
  const echoCard = {
    ...echoAgent.card,
    capabilities: { extensions: [{ uri: TRACE_EXTENSION, description: 'adds a trace id' }] },
    extendedSkills: [
      { id: 'audit', name: 'Audit', description: 'Only for authenticated callers.', tags: ['audit'] },
    ],
  };
  await admin.upsertAgent({ tenantId: 'acme', id: 'echo', card: echoCard, executor: 'echo' });
  await admin.upsertAgent({
    tenantId: 'acme',
    id: 'strict',
    card: { ...echoAgent.card, capabilities: { extensions: [{ uri: REQUIRED_EXTENSION, required: true }] } },
    executor: 'echo',
  });
  await admin.upsertAgent({
    tenantId: 'acme',
    id: 'booking',
    card: { ...bookingAgent.card },
    executor: 'booking',
  });
  await admin.upsertAgent({
    tenantId: 'acme',
    id: 'slow',
    card: { ...slowAgent.card },
    executor: 'slow',
    settings: { delayMs: 900, steps: 3, progress: 'both' },
  });
  await admin.upsertAgent({
    tenantId: 'acme',
    id: 'sleepy',
    card: { ...slowAgent.card },
    executor: 'slow',
    settings: { delayMs: 120_000 },
  });
  await admin.upsertAgent({ tenantId: 'globex', id: 'echo', card: { ...echoAgent.card }, executor: 'echo' });
  const alice = await admin.createApiKey({ tenantId: 'acme', principal: 'alice', role: 'user' });
  const bob = await admin.createApiKey({ tenantId: 'acme', principal: 'bob', role: 'user' });
  const boss = await admin.createApiKey({ tenantId: 'acme', principal: 'boss', role: 'tenant_admin' });
  const carol = await admin.createApiKey({ tenantId: 'globex', principal: 'carol', role: 'user' });
  return {
    keys: { alice: alice.plaintext, bob: bob.plaintext, boss: boss.plaintext, carol: carol.plaintext },
    keyIds: { alice: alice.key.id, bob: bob.key.id, boss: boss.key.id, carol: carol.key.id },
  };
}
