import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore, TenantExistsError } from '../src/admin/index.ts';
import { createDb, type Db } from '../src/db.ts';
import { createSecretBox } from '../src/secret-box.ts';

let testDb: TestDatabase;
let db: Db;
let store: PostgresAdminStore;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  store = new PostgresAdminStore({ db, secrets: createSecretBox('admin-tenants-test-key') });
});
afterAll(async () => {
  await testDb.drop();
});

const WHSEC = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('tenants', () => {
  it('createTenant returns a Standard Webhooks secret (whsec_ + base64 of 32 bytes) and stores it sealed', async () => {
    const { tenant, webhookSecret } = await store.createTenant({ id: 'acme', name: 'Acme' });
    expect(tenant).toMatchObject({ id: 'acme', name: 'Acme', disabledAt: null });
    expect(webhookSecret).toMatch(WHSEC);
    expect(Buffer.from(webhookSecret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const raw = await db
      .selectFrom('tenants')
      .select('webhook_secret_enc')
      .where('id', '=', 'acme')
      .executeTakeFirstOrThrow();
    expect(raw.webhook_secret_enc.toString('latin1')).not.toContain(webhookSecret.slice(6));
    expect(await store.getWebhookSecret('acme')).toBe(webhookSecret);
  });

  it('createTenant refuses a taken id with TenantExistsError', async () => {
    await store.createTenant({ id: 'dup', name: 'One' });
    await expect(store.createTenant({ id: 'dup', name: 'Two' })).rejects.toBeInstanceOf(TenantExistsError);
    expect((await store.getTenant('dup'))?.name).toBe('One');
  });

  it('ensureTenant is idempotent: the second call returns the same tenant and secret', async () => {
    const first = await store.ensureTenant({ id: 'seeded', name: 'Seeded' });
    const second = await store.ensureTenant({ id: 'seeded', name: 'Renamed' });
    expect(second.tenant).toEqual(first.tenant);
    expect(second.webhookSecret).toBe(first.webhookSecret);
  });

  it('ensureTenant run concurrently creates one tenant and every caller sees its secret', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => store.ensureTenant({ id: 'racy', name: 'Racy' })),
    );
    expect(new Set(results.map((r) => r.webhookSecret)).size).toBe(1);
  });

  it('getTenant answers null for an unknown id; listTenants lists by id', async () => {
    expect(await store.getTenant('nope')).toBeNull();
    const ids = (await store.listTenants()).map((t) => t.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(['acme', 'dup', 'seeded']));
  });

  it('rotateWebhookSecret replaces the secret; unknown tenants answer null', async () => {
    const { webhookSecret } = await store.createTenant({ id: 'rotor', name: 'Rotor' });
    const next = await store.rotateWebhookSecret('rotor');
    expect(next).toMatch(WHSEC);
    expect(next).not.toBe(webhookSecret);
    expect(await store.getWebhookSecret('rotor')).toBe(next);
    expect(await store.rotateWebhookSecret('nope')).toBeNull();
    expect(await store.getWebhookSecret('nope')).toBeNull();
  });

  it('setTenantDisabled sets and clears disabled_at', async () => {
    await store.createTenant({ id: 'sleepy', name: 'Sleepy' });
    expect(await store.setTenantDisabled('sleepy', true)).toBe(true);
    expect((await store.getTenant('sleepy'))?.disabledAt).toBeInstanceOf(Date);
    expect(await store.setTenantDisabled('sleepy', false)).toBe(true);
    expect((await store.getTenant('sleepy'))?.disabledAt).toBeNull();
    expect(await store.setTenantDisabled('nope', true)).toBe(false);
  });

  it('setTenantMaxRunning sets, clears and reads back the cap; the schema refuses a negative one', async () => {
    await store.createTenant({ id: 'capped', name: 'Capped' });
    expect((await store.getTenant('capped'))?.maxRunning).toBeNull();
    expect(await store.setTenantMaxRunning('capped', 4)).toMatchObject({ id: 'capped', maxRunning: 4 });
    expect((await store.listTenants()).find((t) => t.id === 'capped')?.maxRunning).toBe(4);
    expect((await store.setTenantMaxRunning('capped', null))?.maxRunning).toBeNull();
    expect(await store.setTenantMaxRunning('nope', 1)).toBeNull();
    await expect(store.setTenantMaxRunning('capped', -1)).rejects.toThrow(/tenants_max_running_not_negative/);
    expect((await store.getTenant('capped'))?.maxRunning).toBeNull();
  });
});
