import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import type { Selectable } from 'kysely';
import type { PushConfigsTable } from '../database.ts';

/**
 * What a read shows in place of a stored secret. Token and credentials are secrets (spec digest §8
 * "Secrets"; epic #1988 wants them redacted on read): once stored, the plaintext leaves the store
 * only through `loadPushConfigSecrets`, for the pusher. The placeholder (rather than omitting the
 * field) tells the client a secret is set.
 */
export const REDACTED = '********';

/** The wire config for a row, secrets redacted, implicit-presence fields omitted when unset. */
export function toPushConfigView(row: Selectable<PushConfigsTable>): TaskPushNotificationConfig {
  const view: TaskPushNotificationConfig = { id: row.id, taskId: row.task_id, url: row.url };
  if (row.token_enc) view.token = REDACTED;
  if (row.auth_scheme !== null) {
    view.authentication = { scheme: row.auth_scheme };
    if (row.auth_credentials_enc) view.authentication.credentials = REDACTED;
  }
  return view;
}
