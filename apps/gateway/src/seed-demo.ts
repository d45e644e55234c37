import { bundledAgents } from '@switchyard/agents';
import { ConfigError, developmentValueOf } from '@switchyard/runtime';
import type { AdminStore } from '@switchyard/store';
import { agentBasePath } from './cards/card-builder.ts';

export interface SeedDemoOptions {
  admin: AdminStore;
  /** Origin the printed URLs use (PUBLIC_URL). */
  publicUrl: string;
  /** Fixed demo key (SWITCHYARD_DEMO_API_KEY, ≥ 16 characters); a fresh one is issued when absent. */
  demoApiKey?: string | undefined;
  /** NODE_ENV=production: the development demo key, public in this repository, is revoked. */
  production?: boolean;
}

export interface SeededAgent {
  id: string;
  executor: string;
  card: string;
  jsonRpc: string;
  rest: string;
}

export interface SeedDemoResult {
  tenantId: string;
  agents: SeededAgent[];
  apiKey: string;
  principal: string;
  /** Earlier generated demo keys this run revoked (only a generated key replaces any). */
  replaced: number;
  /** Every key this run revoked (the replaced ones, the development key): for the gateways' caches. */
  revoked: Array<{ tenantId: string; keyId: string }>;
  /** In production: whether a live key of the development demo key's value was revoked. */
  revokedDevelopmentKey: boolean;
}

export const DEMO_TENANT = 'demo';
export const DEMO_PRINCIPAL = 'demo-user';
/** How the seed describes a fixed key (SWITCHYARD_DEMO_API_KEY): never revoked by a seed. */
const FIXED_DEMO_KEY_DESCRIPTION = 'demo key (seed-demo)';
/** How it describes a key it generated, and so finds it again to be replaced. */
const GENERATED_DEMO_KEY_DESCRIPTION = 'demo key (seed-demo, generated)';

/** Agent id per bundled executor; the invoice reconciler is registered under a shorter id. */
const AGENT_IDS: Record<string, string> = {
  echo: 'echo',
  'invoice-reconciler': 'invoices',
  booking: 'booking',
  slow: 'slow',
};

/** The slow agent streams a few visible steps in the demo; elsewhere its defaults apply. */
const DEMO_SETTINGS: Record<string, Record<string, unknown>> = {
  slow: { delayMs: 5000, steps: 5, progress: 'both' },
};

/** What the store takes as a provided API key: shorter is refused, longer never authenticates. */
const DEMO_API_KEY_LENGTH = { min: 16, max: 512 };

/**
 * What is wrong with a fixed demo key, if anything. Asked before anything is written: the store
 * refuses a short key only when the key is created, last, after the tenant and agents were.
 */
export function demoApiKeyProblem(key: string): string | undefined {
  const { min, max } = DEMO_API_KEY_LENGTH;
  if (key.length < min || key.length > max) return `must be ${min} to ${max} characters`;
  // It is presented as an X-API-Key header or a Bearer token, as the admin token is.
  if (!/^[\x21-\x7e]+$/.test(key)) return 'must be printable ASCII without whitespace';
  return undefined;
}

/** SWITCHYARD_DEMO_API_KEY from the environment (blank is unset); throws ConfigError when unusable. */
export function demoApiKeyFrom(env: NodeJS.ProcessEnv): string | undefined {
  const key = env['SWITCHYARD_DEMO_API_KEY'];
  if (key === undefined || key.trim() === '') return undefined;
  const problem = demoApiKeyProblem(key);
  if (problem !== undefined) throw new ConfigError([`SWITCHYARD_DEMO_API_KEY: ${problem}`]);
  return key;
}

/**
 * Idempotent demo setup: tenant `demo`, every bundled agent with its own card, and a tenant-admin
 * API key for `demo-user`. Running it again with the same fixed key changes nothing, and a fixed
 * key is never revoked by a later seed: script/server's kept key and the TCK recipe's key are both
 * fixed, and each start must not lock the other out. Without a fixed key it issues a new one and
 * revokes the keys earlier keyless seeds generated, so that a setup seeding at every start
 * (compose's migrate service) does not pile up tenant-admin keys that never expire.
 */
export async function seedDemo({
  admin,
  publicUrl,
  demoApiKey,
  production = false,
}: SeedDemoOptions): Promise<SeedDemoResult> {
  const keyProblem = demoApiKey ? demoApiKeyProblem(demoApiKey) : undefined;
  if (keyProblem !== undefined) throw new RangeError(`the demo API key ${keyProblem}; nothing was written`);
  await admin.ensureTenant({ id: DEMO_TENANT, name: 'Demo tenant' });
  const agents: SeededAgent[] = [];
  for (const agent of bundledAgents) {
    const id = AGENT_IDS[agent.executor] ?? agent.executor;
    await admin.upsertAgent({
      tenantId: DEMO_TENANT,
      id,
      card: { ...agent.card },
      executor: agent.executor,
      settings: DEMO_SETTINGS[agent.executor] ?? {},
    });
    const base = `${publicUrl}${agentBasePath(DEMO_TENANT, id)}`;
    agents.push({
      id,
      executor: agent.executor,
      card: `${base}/.well-known/agent-card.json`,
      jsonRpc: `${base}/rpc`,
      rest: `${base}/rest`,
    });
  }
  const issued = await admin.createApiKey({
    tenantId: DEMO_TENANT,
    principal: DEMO_PRINCIPAL,
    role: 'tenant_admin',
    description: demoApiKey ? FIXED_DEMO_KEY_DESCRIPTION : GENERATED_DEMO_KEY_DESCRIPTION,
    ...(demoApiKey ? { plaintext: demoApiKey } : {}),
  });
  // Not brought back: a revoked key may have been revoked because it leaked.
  if (issued.key.revokedAt !== null)
    throw new RangeError(
      'the demo API key (SWITCHYARD_DEMO_API_KEY) was revoked; choose another key (script/server: delete .switchyard/demo-api-key for a new one)',
    );
  // A key made by a keyless seed and now given as the fixed key (a printed key pinned): fixed
  // from now on, so that no later keyless seed revokes it.
  if (demoApiKey && issued.key.description === GENERATED_DEMO_KEY_DESCRIPTION)
    await admin.describeApiKey(DEMO_TENANT, issued.key.id, FIXED_DEMO_KEY_DESCRIPTION);
  const revoked: SeedDemoResult['revoked'] = [];
  if (!demoApiKey)
    for (const key of await admin.listApiKeys(DEMO_TENANT)) {
      const generated =
        key.principal === DEMO_PRINCIPAL && key.description === GENERATED_DEMO_KEY_DESCRIPTION;
      if (generated && key.id !== issued.key.id && key.revokedAt === null)
        if (await admin.revokeApiKey(DEMO_TENANT, key.id))
          revoked.push({ tenantId: DEMO_TENANT, keyId: key.id });
    }
  const replaced = revoked.length;
  const development = production ? await revokeDevelopmentKey(admin) : null;
  if (development) revoked.push(development);
  return {
    tenantId: DEMO_TENANT,
    agents,
    apiKey: issued.plaintext,
    principal: DEMO_PRINCIPAL,
    replaced,
    revoked,
    revokedDevelopmentKey: development !== null,
  };
}

/**
 * A database first seeded in development (compose's defaults) holds a tenant-admin key whose
 * value is in this repository. Production refuses that value as a setting, and here as a key: a
 * production seed revokes it, so moving a setup to production does not leave it working. By value,
 * so a key of a disabled tenant (which would work again once the tenant is enabled) goes too.
 */
async function revokeDevelopmentKey(admin: AdminStore): Promise<{ tenantId: string; keyId: string } | null> {
  const known = developmentValueOf('SWITCHYARD_DEMO_API_KEY');
  return known === undefined ? null : admin.revokeApiKeyByValue(known);
}
