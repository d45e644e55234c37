import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';

/** The tenant's signing secret in clear, for the pusher. */
export async function getWebhookSecret(db: Db, secrets: SecretBox, tenantId: string): Promise<string | null> {
  const row = await db
    .selectFrom('tenants')
    .select('webhook_secret_enc')
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return row ? secrets.open(row.webhook_secret_enc) : null;
}
