import { sql } from 'kysely';
import type { Db } from '../db.ts';

/** Disabling keeps the first disable time (idempotent); enabling clears it. */
export async function setTenantDisabled(db: Db, tenantId: string, disabled: boolean): Promise<boolean> {
  const result = await db
    .updateTable('tenants')
    .set({ disabled_at: disabled ? sql<Date>`coalesce(disabled_at, now())` : null })
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
