import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';
import { isTaskId } from '../tasks/task-row.ts';

/** A push config with its secrets in the clear: for the pusher's Authorization and token headers only. */
export interface PushConfigSecrets {
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/**
 * The one way a stored push secret leaves the store in plaintext (reads through the
 * PushConfigStore are redacted). Null when the config is gone (deleted since the delivery was queued).
 */
export async function loadPushConfigSecrets(
  db: Db,
  secrets: SecretBox,
  tenantId: string,
  taskId: string,
  id: string,
): Promise<PushConfigSecrets | null> {
  if (!isTaskId(taskId)) return null;
  const row = await db
    .selectFrom('push_configs')
    .select(['url', 'token_enc', 'auth_scheme', 'auth_credentials_enc'])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  const out: PushConfigSecrets = { url: row.url };
  if (row.token_enc) out.token = secrets.open(row.token_enc);
  if (row.auth_scheme !== null) {
    out.authentication = { scheme: row.auth_scheme };
    if (row.auth_credentials_enc) out.authentication.credentials = secrets.open(row.auth_credentials_enc);
  }
  return out;
}
