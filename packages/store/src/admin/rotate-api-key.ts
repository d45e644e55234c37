import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { IssuedApiKey } from './admin-store.ts';
import { createApiKey } from './create-api-key.ts';
import { isUuid } from './key-material.ts';

/**
 * Revokes a live key and issues a replacement for the same principal, role, description and
 * expiry, in one transaction. The revoke is guarded on the key still being live, so of two
 * concurrent rotations exactly one issues a key; a revoked or expired key answers null.
 */
export async function rotateApiKey(db: Db, tenantId: string, keyId: string): Promise<IssuedApiKey | null> {
  if (!isUuid(keyId)) return null;
  return db.transaction().execute(async (trx) => {
    const old = await trx
      .updateTable('api_keys')
      .set({ revoked_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', eb.fn<Date>('now'))]))
      .returning(['principal', 'role', 'description', 'expires_at'])
      .executeTakeFirst();
    if (!old) return null;
    return createApiKey(trx, {
      tenantId,
      principal: old.principal,
      role: old.role,
      description: old.description,
      expiresAt: old.expires_at ?? undefined,
    });
  });
}
