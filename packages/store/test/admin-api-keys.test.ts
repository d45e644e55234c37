import { createHash } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyConflictError, PostgresAdminStore } from '../src/admin/index.ts';
import { createDb, type Db } from '../src/db.ts';
import { createSecretBox } from '../src/secret-box.ts';

let testDb: TestDatabase;
let db: Db;
let store: PostgresAdminStore;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  store = new PostgresAdminStore({ db, secrets: createSecretBox('admin-keys-test-key') });
  await store.createTenant({ id: 'acme', name: 'Acme' });
  await store.createTenant({ id: 'other', name: 'Other' });
});
afterAll(async () => {
  await testDb.drop();
});

describe('API keys', () => {
  it('createApiKey issues sy_ + base64url(32 bytes) and stores only its SHA-256 and 10-char prefix', async () => {
    const { key, plaintext } = await store.createApiKey({
      tenantId: 'acme',
      principal: 'alice',
      role: 'user',
      description: 'cli',
    });
    expect(plaintext).toMatch(/^sy_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({
      tenantId: 'acme',
      principal: 'alice',
      role: 'user',
      description: 'cli',
      keyPrefix: plaintext.slice(0, 10),
    });
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash.equals(createHash('sha256').update(plaintext).digest())).toBe(true);
    expect(JSON.stringify(row)).not.toContain(plaintext);
  });

  it('authenticateApiKey resolves a live key to its tenant, principal and role', async () => {
    const { key, plaintext } = await store.createApiKey({
      tenantId: 'acme',
      principal: 'root',
      role: 'tenant_admin',
    });
    expect(await store.authenticateApiKey(plaintext)).toEqual({
      keyId: key.id,
      tenantId: 'acme',
      principal: 'root',
      role: 'tenant_admin',
    });
    expect(await store.authenticateApiKey(`${plaintext}x`)).toBeNull();
    expect(await store.authenticateApiKey('')).toBeNull();
  });

  it('a revoked key is refused, and revoking again is a no-op that keeps the first time', async () => {
    const { key, plaintext } = await store.createApiKey({ tenantId: 'acme', principal: 'bob', role: 'user' });
    expect(await store.revokeApiKey('acme', key.id)).toBe(true);
    const first = (await store.listApiKeys('acme')).find((k) => k.id === key.id)?.revokedAt;
    expect(first).toBeInstanceOf(Date);
    expect(await store.revokeApiKey('acme', key.id)).toBe(true);
    expect((await store.listApiKeys('acme')).find((k) => k.id === key.id)?.revokedAt).toEqual(first);
    expect(await store.authenticateApiKey(plaintext)).toBeNull();
  });

  it('revokeApiKey is scoped by tenant and answers false for unknown or malformed ids', async () => {
    const { key, plaintext } = await store.createApiKey({
      tenantId: 'acme',
      principal: 'carol',
      role: 'user',
    });
    expect(await store.revokeApiKey('other', key.id)).toBe(false);
    expect(await store.revokeApiKey('acme', 'not-a-uuid')).toBe(false);
    expect(await store.authenticateApiKey(plaintext)).not.toBeNull();
  });

  it('an expired key is refused', async () => {
    const past = await store.createApiKey({
      tenantId: 'acme',
      principal: 'dave',
      role: 'user',
      expiresAt: new Date(Date.now() - 1000),
    });
    const future = await store.createApiKey({
      tenantId: 'acme',
      principal: 'dave',
      role: 'user',
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    expect(await store.authenticateApiKey(past.plaintext)).toBeNull();
    // The identity carries the expiry, so a cache can stop trusting the key then.
    const identity = await store.authenticateApiKey(future.plaintext);
    expect(identity?.expiresAt?.getTime()).toBe(future.key.expiresAt?.getTime());
  });

  it("a disabled tenant's keys are refused until it is enabled again", async () => {
    await store.createTenant({ id: 'paused', name: 'Paused' });
    const { plaintext } = await store.createApiKey({ tenantId: 'paused', principal: 'eve', role: 'user' });
    await store.setTenantDisabled('paused', true);
    expect(await store.authenticateApiKey(plaintext)).toBeNull();
    await store.setTenantDisabled('paused', false);
    expect(await store.authenticateApiKey(plaintext)).not.toBeNull();
  });

  it('a provided plaintext is idempotent for the same tenant and principal, and refused for anyone else', async () => {
    const demo = 'sy_demo_key_for_local_development';
    const first = await store.createApiKey({
      tenantId: 'acme',
      principal: 'demo',
      role: 'tenant_admin',
      plaintext: demo,
    });
    const again = await store.createApiKey({
      tenantId: 'acme',
      principal: 'demo',
      role: 'tenant_admin',
      plaintext: demo,
    });
    expect(again).toEqual(first);
    expect(first.plaintext).toBe(demo);
    expect(await store.authenticateApiKey(demo)).toMatchObject({ tenantId: 'acme', principal: 'demo' });
    await expect(
      store.createApiKey({ tenantId: 'other', principal: 'demo', role: 'user', plaintext: demo }),
    ).rejects.toBeInstanceOf(ApiKeyConflictError);
    await expect(
      store.createApiKey({ tenantId: 'acme', principal: 'mallory', role: 'user', plaintext: demo }),
    ).rejects.toBeInstanceOf(ApiKeyConflictError);
    await expect(
      store.createApiKey({ tenantId: 'acme', principal: 'demo', role: 'user', plaintext: 'short' }),
    ).rejects.toBeInstanceOf(RangeError);
  });

  it('rotateApiKey revokes the old key and issues one with the same principal and role', async () => {
    const old = await store.createApiKey({
      tenantId: 'acme',
      principal: 'frank',
      role: 'tenant_admin',
      description: 'ops',
    });
    const next = await store.rotateApiKey('acme', old.key.id);
    expect(next).not.toBeNull();
    expect(next?.key).toMatchObject({
      tenantId: 'acme',
      principal: 'frank',
      role: 'tenant_admin',
      description: 'ops',
      revokedAt: null,
    });
    expect(next?.plaintext).not.toBe(old.plaintext);
    expect(await store.authenticateApiKey(old.plaintext)).toBeNull();
    expect(await store.authenticateApiKey(next?.plaintext ?? '')).toMatchObject({
      principal: 'frank',
      role: 'tenant_admin',
    });
  });

  it('rotateApiKey of a revoked, expired, foreign or unknown key answers null and issues nothing', async () => {
    const revoked = await store.createApiKey({ tenantId: 'acme', principal: 'gina', role: 'user' });
    await store.revokeApiKey('acme', revoked.key.id);
    const expired = await store.createApiKey({
      tenantId: 'acme',
      principal: 'gina',
      role: 'user',
      expiresAt: new Date(Date.now() - 1000),
    });
    const before = (await store.listApiKeys('acme')).length;
    expect(await store.rotateApiKey('acme', revoked.key.id)).toBeNull();
    expect(await store.rotateApiKey('acme', expired.key.id)).toBeNull();
    expect(await store.rotateApiKey('other', expired.key.id)).toBeNull();
    expect(await store.rotateApiKey('acme', '00000000-0000-0000-0000-000000000000')).toBeNull();
    expect((await store.listApiKeys('acme')).length).toBe(before);
  });

  it('concurrent rotations of one key issue exactly one replacement', async () => {
    const { key } = await store.createApiKey({ tenantId: 'acme', principal: 'hank', role: 'user' });
    const results = await Promise.all([1, 2, 3, 4].map(() => store.rotateApiKey('acme', key.id)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const live = (await store.listApiKeys('acme')).filter(
      (k) => k.principal === 'hank' && k.revokedAt === null,
    );
    expect(live).toHaveLength(1);
  });

  it('listApiKeys lists one tenant, oldest first, without hashes or plaintext', async () => {
    await store.createApiKey({ tenantId: 'other', principal: 'ivy', role: 'user' });
    const keys = await store.listApiKeys('other');
    expect(keys.map((k) => k.principal)).toEqual(['ivy']);
    expect(Object.keys(keys[0] ?? {}).sort()).toEqual(
      [
        'createdAt',
        'description',
        'expiresAt',
        'id',
        'keyPrefix',
        'principal',
        'revokedAt',
        'role',
        'tenantId',
      ].sort(),
    );
    const acme = await store.listApiKeys('acme');
    const times = acme.map((k) => k.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('authentication is one indexed probe: the key_hash unique index serves the lookup', async () => {
    // Seq scans are switched off so the assertion is about the index being usable, not about what
    // the planner prefers for a table of a dozen rows.
    const plan = await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      return sql<{ 'QUERY PLAN': string }>`
        EXPLAIN SELECT 1 FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.key_hash = ${Buffer.alloc(32)}`.execute(
        trx,
      );
    });
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(
      /Index Scan using api_keys_key_hash_key/,
    );
  });
});

describe('liveApiKeyIds', () => {
  it('keeps the keys that still authenticate: not revoked, not expired, tenant enabled', async () => {
    await store.createTenant({ id: 'on-hold', name: 'On hold' });
    const live = await store.createApiKey({ tenantId: 'acme', principal: 'live', role: 'user' });
    const revoked = await store.createApiKey({ tenantId: 'acme', principal: 'gone', role: 'user' });
    const expired = await store.createApiKey({
      tenantId: 'acme',
      principal: 'old',
      role: 'user',
      expiresAt: new Date(Date.now() - 1000),
    });
    const paused = await store.createApiKey({ tenantId: 'on-hold', principal: 'p', role: 'user' });
    await store.revokeApiKey('acme', revoked.key.id);
    await store.setTenantDisabled('on-hold', true);
    const ids = [live, revoked, expired, paused].map((k) => k.key.id);
    expect(await store.liveApiKeyIds([...ids, 'not-a-uuid', crypto.randomUUID()])).toEqual(
      new Set([live.key.id]),
    );
    expect(await store.liveApiKeyIds([])).toEqual(new Set());
  });
});
