import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createSecretBox, PostgresAdminStore } from '@switchyard/store';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { seedDemo } from '../src/seed-demo.ts';

let db: TestDatabase;
let admin: PostgresAdminStore;
beforeAll(async () => {
  db = await createTestDatabase();
  admin = new PostgresAdminStore({
    db: createDb(db.pool),
    secrets: createSecretBox('test-secret-key-0123456789'),
  });
});
afterAll(async () => {
  await db?.drop();
});

describe('seedDemo', () => {
  it('registers the bundled agents and a fixed demo key, idempotently', async () => {
    const key = 'sy_demo-key-for-tests-0123456789';
    const first = await seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: key });
    const second = await seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: key });
    expect(second).toEqual(first);
    expect(first.agents.map((a) => [a.id, a.executor])).toEqual([
      ['echo', 'echo'],
      ['invoices', 'invoice-reconciler'],
      ['booking', 'booking'],
      ['slow', 'slow'],
      ['conformance', 'conformance'],
    ]);
    expect(first.agents[1]?.card).toBe(
      'http://localhost:8080/agents/demo/invoices/.well-known/agent-card.json',
    );
    expect(await admin.authenticateApiKey(key)).toMatchObject({
      tenantId: 'demo',
      principal: 'demo-user',
      role: 'tenant_admin',
    });
    expect((await admin.listApiKeys('demo')).length).toBe(1);
    expect((await admin.listAgents('demo')).map((a) => a.id).sort()).toEqual([
      'booking',
      'conformance',
      'echo',
      'invoices',
      'slow',
    ]);
  });

  it('generates a key when none is given, replacing only keys earlier keyless seeds generated', async () => {
    const fixed = 'sy_demo-key-for-tests-0123456789';
    const seed = (demoApiKey?: string) => seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey });
    const first = await seed();
    expect(first.apiKey).toMatch(/^sy_/);
    expect(await admin.authenticateApiKey(first.apiKey)).toMatchObject({ principal: 'demo-user' });
    // A fixed key (script/server's kept one, the TCK recipe's) is never a seed's to revoke.
    expect(first.replaced).toBe(0);
    expect(first.revoked).toEqual([]);
    expect(await admin.authenticateApiKey(fixed)).toMatchObject({ principal: 'demo-user' });
    const firstId = (await admin.authenticateApiKey(first.apiKey))!.keyId;
    const second = await seed();
    expect(second.replaced).toBe(1);
    // What the bin announces to running gateways (announce-seed-revocations.ts).
    expect(second.revoked).toEqual([{ tenantId: 'demo', keyId: firstId }]);
    expect(await admin.authenticateApiKey(first.apiKey)).toBeNull();
    // Seeding a fixed key revokes nothing: two setups with their own fixed keys both keep working.
    const another = 'sy_another-demo-key-0123456789';
    expect((await seed(another)).replaced).toBe(0);
    expect((await seed(fixed)).replaced).toBe(0);
    for (const key of [fixed, another, second.apiKey])
      expect(await admin.authenticateApiKey(key)).toMatchObject({ principal: 'demo-user' });
    // A key an operator issued to the same principal is not the seed's: it stays.
    const own = await admin.createApiKey({ tenantId: 'demo', principal: 'demo-user', role: 'user' });
    const third = await seed();
    expect(third.replaced).toBe(1);
    const live = (await admin.listApiKeys('demo')).filter((k) => k.revokedAt === null);
    const idOf = async (key: string) => (await admin.authenticateApiKey(key))!.keyId;
    expect(live.map((k) => k.id).sort()).toEqual(
      [own.key.id, await idOf(fixed), await idOf(another), await idOf(third.apiKey)].sort(),
    );
  });

  it('refuses a fixed key an operator revoked (it may have leaked), and writes no key', async () => {
    const leaked = 'sy_leaked-demo-key-0123456789';
    await seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: leaked });
    const { keyId } = (await admin.authenticateApiKey(leaked))!;
    await admin.revokeApiKey('demo', keyId);
    const before = await admin.listApiKeys('demo');
    await expect(seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: leaked })).rejects.toThrow(
      'the demo API key (SWITCHYARD_DEMO_API_KEY) was revoked',
    );
    expect(await admin.authenticateApiKey(leaked)).toBeNull();
    expect(await admin.listApiKeys('demo')).toEqual(before);
  });

  it('keeps a generated key once it is given as the fixed key (a printed key pinned)', async () => {
    const printed = await seedDemo({ admin, publicUrl: 'http://localhost:8080' });
    await seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: printed.apiKey });
    const later = await seedDemo({ admin, publicUrl: 'http://localhost:8080' });
    expect(await admin.authenticateApiKey(printed.apiKey)).toMatchObject({ principal: 'demo-user' });
    expect(await admin.authenticateApiKey(later.apiKey)).toMatchObject({ principal: 'demo-user' });
  });

  it('in production, revokes the development demo key a development seed left live', async () => {
    const development = 'switchyard-demo-api-key';
    const dev = await seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: development });
    expect(dev.revokedDevelopmentKey).toBe(false);
    expect(await admin.authenticateApiKey(development)).not.toBeNull();
    // The same database, moved to production with a key of its own: the public one stops working.
    const own = 'sy_production-demo-key-0123456789';
    const prod = await seedDemo({
      admin,
      publicUrl: 'https://a2a.example',
      demoApiKey: own,
      production: true,
    });
    expect(prod.revokedDevelopmentKey).toBe(true);
    expect(await admin.authenticateApiKey(development)).toBeNull();
    expect(await admin.authenticateApiKey(own)).toMatchObject({ principal: 'demo-user' });
    const again = await seedDemo({ admin, publicUrl: 'https://a2a.example', production: true });
    expect(again.revokedDevelopmentKey).toBe(false);
  });

  it('in production, revokes the development key of a disabled tenant too, for good', async () => {
    // A database of its own: the test above revoked the development key in the shared one.
    const other = await createTestDatabase();
    try {
      const store = new PostgresAdminStore({
        db: createDb(other.pool),
        secrets: createSecretBox('test-secret-key-0123456789'),
      });
      const development = 'switchyard-demo-api-key';
      await seedDemo({ admin: store, publicUrl: 'http://localhost:8080', demoApiKey: development });
      const developmentId = (await store.authenticateApiKey(development))?.keyId;
      await store.setTenantDisabled('demo', true);
      const prod = await seedDemo({ admin: store, publicUrl: 'https://a2a.example', production: true });
      expect(prod.revokedDevelopmentKey).toBe(true);
      expect(prod.revoked).toContainEqual({ tenantId: 'demo', keyId: developmentId });
      // Enabling the tenant again does not bring the public key back.
      await store.setTenantDisabled('demo', false);
      expect(await store.authenticateApiKey(development)).toBeNull();
      expect(await store.authenticateApiKey(prod.apiKey)).toMatchObject({ principal: 'demo-user' });
    } finally {
      await other.drop();
    }
  });
});
