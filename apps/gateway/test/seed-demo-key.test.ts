import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@switchyard/runtime';
import { createDb, createSecretBox, PostgresAdminStore } from '@switchyard/store';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { demoApiKeyFrom, seedDemo } from '../src/seed-demo.ts';

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

// The store refuses a short key only when it creates it, after the tenant and the agents were
// written: the seed must refuse it before writing anything.
describe('a demo API key the store would refuse', () => {
  it('writes nothing', async () => {
    await expect(
      seedDemo({ admin, publicUrl: 'http://localhost:8080', demoApiKey: 'short' }),
    ).rejects.toThrow(/demo API key must be 16 to 512 characters; nothing was written/);
    expect(await admin.getTenant('demo')).toBeNull();
    expect(await admin.listAgents('demo')).toEqual([]);
  });

  it.each([
    ['too short', 'short', 'must be 16 to 512 characters'],
    ['too long', 'k'.repeat(513), 'must be 16 to 512 characters'],
    ['with a space', 'sy_demo key for the tests', 'must be printable ASCII without whitespace'],
  ])('%s is a config problem naming SWITCHYARD_DEMO_API_KEY', (_what, key, problem) => {
    expect(() => demoApiKeyFrom({ SWITCHYARD_DEMO_API_KEY: key })).toThrow(ConfigError);
    expect(() => demoApiKeyFrom({ SWITCHYARD_DEMO_API_KEY: key })).toThrow(
      `SWITCHYARD_DEMO_API_KEY: ${problem}`,
    );
  });

  it('unset or blank, a key is generated', () => {
    expect(demoApiKeyFrom({})).toBeUndefined();
    expect(demoApiKeyFrom({ SWITCHYARD_DEMO_API_KEY: '  ' })).toBeUndefined();
    expect(demoApiKeyFrom({ SWITCHYARD_DEMO_API_KEY: 'sy_demo-key-for-tests-0123456789' })).toBe(
      'sy_demo-key-for-tests-0123456789',
    );
  });
});
