import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';
import { TenantExistsError } from './admin-errors.ts';
import { TENANT_COLUMNS, toTenantRecord } from './admin-rows.ts';
import type { NewTenant, TenantWithSecret } from './admin-store.ts';
import { generateWebhookSecret } from './key-material.ts';

/** A new tenant with a fresh signing secret, stored sealed. */
export async function createTenant(db: Db, secrets: SecretBox, input: NewTenant): Promise<TenantWithSecret> {
  const webhookSecret = generateWebhookSecret();
  const row = await db
    .insertInto('tenants')
    .values({ id: input.id, name: input.name, webhook_secret_enc: secrets.seal(webhookSecret) })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning(TENANT_COLUMNS)
    .executeTakeFirst();
  if (!row) throw new TenantExistsError(input.id);
  return { tenant: toTenantRecord(row), webhookSecret };
}
