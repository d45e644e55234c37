import type { Db } from '../db.ts';
import { TENANT_COLUMNS, toTenantRecord } from './admin-rows.ts';
import type { TenantRecord } from './admin-store.ts';

export async function getTenant(db: Db, tenantId: string): Promise<TenantRecord | null> {
  const row = await db
    .selectFrom('tenants')
    .select(TENANT_COLUMNS)
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return row ? toTenantRecord(row) : null;
}
