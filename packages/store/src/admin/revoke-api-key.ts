import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { hashApiKey, isUuid } from './key-material.ts';

/** Idempotent: a second revoke keeps the first revocation time. False for an unknown key. */
export async function revokeApiKey(db: Db, tenantId: string, keyId: string): Promise<boolean> {
  if (!isUuid(keyId)) return false;
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Revokes the key with this value, whatever its tenant's state or expiry (a disabled tenant's key
 * is still a key that may come back with the tenant). The key's tenant and id, or null when no
 * unrevoked key has this value.
 */
export async function revokeApiKeyByValue(
  db: Db,
  plaintext: string,
): Promise<{ tenantId: string; keyId: string } | null> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`now()` })
    .where('key_hash', '=', hashApiKey(plaintext))
    .where('revoked_at', 'is', null)
    .returning(['tenant_id', 'id'])
    .executeTakeFirst();
  return row ? { tenantId: row.tenant_id, keyId: row.id } : null;
}
