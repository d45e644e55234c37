import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';
import { generateWebhookSecret } from './key-material.ts';

/**
 * Replaces the signing secret at once: the schema keeps one secret per tenant, so receivers must
 * accept the new one before the operator rotates (Standard Webhooks receivers may hold several).
 */
export async function rotateWebhookSecret(
  db: Db,
  secrets: SecretBox,
  tenantId: string,
): Promise<string | null> {
  const secret = generateWebhookSecret();
  const result = await db
    .updateTable('tenants')
    .set({ webhook_secret_enc: secrets.seal(secret) })
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n ? secret : null;
}
