import type { Db } from '../db.ts';
import { TENANT_COLUMNS, toTenantRecord } from './admin-rows.ts';
import type { TenantRecord } from './admin-store.ts';

/** Sets a tenant's cap on runs at once (null: the fleet's); the tenant as it now is, or null. */
export async function setTenantMaxRunning(
  db: Db,
  tenantId: string,
  maxRunning: number | null,
): Promise<TenantRecord | null> {
  const row = await db
    .updateTable('tenants')
    .set({ max_running: maxRunning })
    .where('id', '=', tenantId)
    .returning(TENANT_COLUMNS)
    .executeTakeFirst();
  return row ? toTenantRecord(row) : null;
}
