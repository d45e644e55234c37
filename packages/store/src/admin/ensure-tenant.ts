import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';
import { TENANT_COLUMNS, toTenantRecord } from './admin-rows.ts';
import type { NewTenant, TenantWithSecret } from './admin-store.ts';
import { generateWebhookSecret } from './key-material.ts';

/**
 * Idempotent tenant creation for seeding: an existing tenant is returned unchanged (name and
 * secret). Two statements, not one CTE: when a concurrent seeder wins the insert, only a second
 * statement (a new snapshot under READ COMMITTED) can see its row.
 */
export async function ensureTenant(db: Db, secrets: SecretBox, input: NewTenant): Promise<TenantWithSecret> {
  const fresh = generateWebhookSecret();
  const inserted = await db
    .insertInto('tenants')
    .values({ id: input.id, name: input.name, webhook_secret_enc: secrets.seal(fresh) })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning(TENANT_COLUMNS)
    .executeTakeFirst();
  if (inserted) return { tenant: toTenantRecord(inserted), webhookSecret: fresh };
  const existing = await db
    .selectFrom('tenants')
    .select([...TENANT_COLUMNS, 'webhook_secret_enc'])
    .where('id', '=', input.id)
    .executeTakeFirstOrThrow();
  return { tenant: toTenantRecord(existing), webhookSecret: secrets.open(existing.webhook_secret_enc) };
}
