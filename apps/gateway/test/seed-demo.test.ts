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

  it('generates a key when none is given, and each seed leaves one live demo key', async () => {
    const fixed = 'sy_demo-key-for-tests-0123456789';
    const result = await seedDemo({ admin, publicUrl: 'http://localhost:8080' });
    expect(result.apiKey).toMatch(/^sy_/);
    expect(await admin.authenticateApiKey(result.apiKey)).toMatchObject({ principal: 'demo-user' });
    // The fixed key of the test before is replaced, not kept beside it.
    expect(result.replaced).toBe(1);
    expect(await admin.authenticateApiKey(fixed)).toBeNull();
    const again = await seedDemo({ admin, publicUrl: 'http://localhost:8080' });
    expect(again.replaced).toBe(1);
    expect(await admin.authenticateApiKey(result.apiKey)).toBeNull();
    // A revoked fixed key is not brought back (it may have leaked): the seed says so instead.
    await expect(seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: fixed })).rejects.toThrow(
      'the demo API key (SWITCHYARD_DEMO_API_KEY) was revoked',
    );
    expect(await admin.authenticateApiKey(fixed)).toBeNull();
    // A key an operator issued to the same principal is not the seed's: it stays.
    const own = await admin.createApiKey({ tenantId: 'demo', principal: 'demo-user', role: 'user' });
    const another = 'sy_another-demo-key-0123456789';
    const fixedAgain = await seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: another });
    expect(fixedAgain.replaced).toBe(1);
    const live = (await admin.listApiKeys('demo')).filter((k) => k.revokedAt === null);
    expect(live.map((k) => k.id).sort()).toEqual(
      [own.key.id, (await admin.authenticateApiKey(another))!.keyId].sort(),
    );
    expect(await admin.authenticateApiKey(again.apiKey)).toBeNull();
  });
});
