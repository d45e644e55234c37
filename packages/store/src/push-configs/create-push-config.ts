import { randomUUID } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';
import type { NewPushConfig } from '../task-store.ts';
import { toPushConfigView } from './push-config-view.ts';

/** The stored columns of a config other than its key, secrets sealed. */
export function pushConfigValues(secrets: SecretBox | undefined, config: NewPushConfig) {
  const seal = (plain: string | undefined): Buffer | null => {
    if (plain === undefined || plain === '') return null;
    if (!secrets) throw new Error('a SecretBox is required to store push notification secrets');
    return secrets.seal(plain);
  };
  return {
    url: config.url,
    token_enc: seal(config.token),
    auth_scheme: config.authentication?.scheme ?? null,
    auth_credentials_enc: seal(config.authentication?.credentials),
    wire_version: config.wireVersion ?? ('1.0' as const),
  };
}

/**
 * Stores a task's push config with its secrets sealed, with no limit: for the task created in the
 * same transaction (it has no other config). Configs added to an existing task go through
 * `addPushConfig`, which keeps to the per-task limit. Shape only: URL and SSRF checks belong to
 * the engine (ARCHITECTURE.md §7). Creating an existing id replaces it, so a retried create is
 * idempotent; deliveries already queued for it stay queued.
 */
export async function createPushConfig(
  db: Db,
  secrets: SecretBox | undefined,
  tenantId: string,
  taskId: string,
  config: NewPushConfig,
): Promise<TaskPushNotificationConfig> {
  const values = pushConfigValues(secrets, config);
  const row = await db
    .insertInto('push_configs')
    .values({ tenant_id: tenantId, task_id: taskId, id: config.id || randomUUID(), ...values })
    .onConflict((oc) => oc.columns(['tenant_id', 'task_id', 'id']).doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  return toPushConfigView(row);
}
