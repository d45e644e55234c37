import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isUuid } from './key-material.ts';

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
