import type { Db } from '../db.ts';
import type { ApiKeyIdentity } from './admin-store.ts';
import { hashApiKey, isUuid } from './key-material.ts';

/** Real keys are 46 characters; refusing huge inputs keeps hashing cheap for junk headers. */
const MAX_KEY_LENGTH = 512;

/**
 * One probe of the unique key_hash index plus the tenant's primary key. Revoked, expired and
 * disabled-tenant keys all answer null, so the gateway cannot tell a caller which one it was.
 */
export async function authenticateApiKey(db: Db, plaintext: string): Promise<ApiKeyIdentity | null> {
  if (plaintext.length === 0 || plaintext.length > MAX_KEY_LENGTH) return null;
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select(['k.id', 'k.tenant_id', 'k.principal', 'k.role', 'k.expires_at'])
    .where('k.key_hash', '=', hashApiKey(plaintext))
    .where('k.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', eb.fn<Date>('now'))]))
    .where('t.disabled_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  const identity = { keyId: row.id, tenantId: row.tenant_id, principal: row.principal, role: row.role };
  return row.expires_at ? { ...identity, expiresAt: row.expires_at } : identity;
}

/**
 * Which of these key ids still authenticate (not revoked, not expired, tenant enabled), in one
 * query: a gateway that may have missed revocations re-checks the keys of its open streams.
 */
export async function liveApiKeyIds(db: Db, keyIds: readonly string[]): Promise<Set<string>> {
  const ids = keyIds.filter(isUuid);
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select('k.id')
    .where('k.id', 'in', ids)
    .where('k.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', eb.fn<Date>('now'))]))
    .where('t.disabled_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.id));
}
