import type { Db } from '../db.ts';
import { TENANT_COLUMNS, toTenantRecord } from './admin-rows.ts';
import type { TenantRecord } from './admin-store.ts';

/** Every tenant, by id. Tenants number in the hundreds at most, so no paging. */
export async function listTenants(db: Db): Promise<TenantRecord[]> {
  const rows = await db.selectFrom('tenants').select(TENANT_COLUMNS).orderBy('id').execute();
  return rows.map(toTenantRecord);
}
