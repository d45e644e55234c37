import type { Db } from '../db.ts';
import { API_KEY_COLUMNS, toApiKeyRecord } from './admin-rows.ts';
import type { ApiKeyRecord } from './admin-store.ts';

/** Oldest first (the api_keys_tenant index order), revoked keys included for the audit trail. */
export async function listApiKeys(db: Db, tenantId: string): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(API_KEY_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toApiKeyRecord);
}
