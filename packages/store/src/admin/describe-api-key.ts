import type { Db } from '../db.ts';
import { isUuid } from './key-material.ts';

/** Sets a key's description (what the key list shows it as). False for an unknown key. */
export async function describeApiKey(
  db: Db,
  tenantId: string,
  keyId: string,
  description: string,
): Promise<boolean> {
  if (!isUuid(keyId)) return false;
  const result = await db
    .updateTable('api_keys')
    .set({ description })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
