import { randomUUID } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import { sql, type Selectable } from 'kysely';
import type { PushConfigsTable } from '../database.ts';
import type { Db } from '../db.ts';
import { ConflictError, RedactedSecretError } from '../errors.ts';
import type { SecretBox } from '../secret-box.ts';
import type { NewPushConfig } from '../task-store.ts';
import { pushConfigValues } from './create-push-config.ts';
import { REDACTED, toPushConfigView } from './push-config-view.ts';

/**
 * Webhooks one task may have (README "Limits"). Every event of a task is queued once per config,
 * and the pushers deliver in one order shared by all tenants, so a task's configs multiply the
 * work its events cost everyone: 300 of them turned one cancel into 300 deliveries ahead of other
 * tenants'. A client needs one webhook per task, a few when observers follow it too (0.3 servers
 * kept one per task, and the SDKs give an id-less config the task's id, so it replaces the last);
 * 10 leaves room for that and caps a task's fan-out at 10 deliveries per event.
 */
export const DEFAULT_MAX_PUSH_CONFIGS_PER_TASK = 10;

// Advisory-lock class of the per-task push config lock (two-int keys, a space of their own).
const PUSH_CONFIG_LOCK_CLASS = 0x70636667;

/**
 * Adds a config to an existing task, or updates one it has, with secrets sealed; null, and nothing
 * changed, when it would be new and the task already has `maxPerTask`. It is not new when its id is
 * registered (an upsert, so a retried create is idempotent), or, given without an id, when its URL
 * is (the oldest config with that URL is updated, keeping its id): re-registering a webhook never
 * adds a delivery per event. The same URL under a new id is a new config. Shape only: URL and SSRF
 * checks belong to the engine (ARCHITECTURE.md §7).
 *
 * The limit is enforced by the insert itself: it runs only WHERE the config exists or the task has
 * fewer than `maxPerTask`. Alone, two concurrent inserts could each count the other's row as
 * missing (each statement sees the rows committed when it started) and both go through; so a
 * transaction-scoped advisory lock on (tenant, task) is taken first, in its own statement. The
 * insert then starts after any rival's commit, sees its row, and the count is exact: a task never
 * holds more than `maxPerTask` configs added this way. The lock touches no row, so the task's own
 * writes and deliveries never wait on it; only creates on the same task do, for one statement.
 *
 * With `keepExisting`, a config the task already has for the URL (and the id, when given) is
 * returned as it is, not updated: for a webhook named in a message, where a send that loses its
 * race (a rival answer) must not replace the winner's token or credentials on the shared row.
 */
export async function addPushConfig(
  db: Db,
  secrets: SecretBox | undefined,
  tenantId: string,
  taskId: string,
  config: NewPushConfig,
  maxPerTask: number,
  { keepExisting = false }: { keepExisting?: boolean } = {},
): Promise<TaskPushNotificationConfig | null> {
  const v = pushConfigValues(secrets, config);
  // Inside a caller's transaction (a continuation registering its webhook with its change) that
  // change holds the task row; alone, the config must be ordered against the task's writers.
  const alone = !db.isTransaction;
  const run = async (trx: Db) => {
    const lockKey = `${tenantId}/${taskId}`;
    await sql`SELECT pg_advisory_xact_lock(${PUSH_CONFIG_LOCK_CLASS}, hashtext(${lockKey}))`.execute(trx);
    if (alone) await holdTaskRow(trx, tenantId, taskId);
    if (keepExisting) {
      // The task already has this webhook (its URL, and its id when one is given): left as it is.
      const existing = await trx
        .selectFrom('push_configs')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('task_id', '=', taskId)
        .where('url', '=', config.url)
        .$if(config.id !== undefined, (q) => q.where('id', '=', config.id ?? ''))
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      if (existing) return toPushConfigView(existing);
    }
    const sameConfig = config.id === undefined ? sql`url = ${config.url}` : sql`id = ${config.id}`;
    await refuseMisplacedPlaceholder(trx, tenantId, taskId, config);
    const { rows } = await sql<Selectable<PushConfigsTable>>`
      WITH existing AS (
        SELECT id FROM push_configs
        WHERE tenant_id = ${tenantId} AND task_id = ${taskId} AND ${sameConfig}
        ORDER BY created_at, id
        LIMIT 1
      )
      INSERT INTO push_configs
        (tenant_id, task_id, id, url, token_enc, auth_scheme, auth_credentials_enc, wire_version)
      SELECT ${tenantId}, ${taskId}::uuid, coalesce((SELECT id FROM existing), ${config.id ?? randomUUID()}),
             ${v.url}, ${v.token_enc}::bytea, ${v.auth_scheme}::text, ${v.auth_credentials_enc}::bytea,
             ${v.wire_version}
      WHERE EXISTS (SELECT 1 FROM existing)
         OR (SELECT count(*) FROM push_configs WHERE tenant_id = ${tenantId} AND task_id = ${taskId})
            < ${maxPerTask}
      ON CONFLICT (tenant_id, task_id, id) DO UPDATE SET
        url = excluded.url, token_enc = ${keptIfRedacted(config.token, 'token_enc')},
        auth_scheme = excluded.auth_scheme,
        auth_credentials_enc = ${keptIfRedacted(config.authentication?.credentials, 'auth_credentials_enc')},
        wire_version = excluded.wire_version
      RETURNING *`.execute(trx);
    return rows[0] ? toPushConfigView(rows[0]) : null;
  };
  return alone ? db.transaction().execute(run) : run(db);
}

/**
 * Holds the task's row (FOR SHARE) until the config commits, or throws ConflictError when there
 * is none, which orders the config against the
 * task's writers: a writer already holding the row commits first, and its event precedes the
 * config and is not owed to it; one that comes later waits for the config, and then queues its
 * event for it, because writers read the configs once they hold the row
 * (000011_task_push_config_ids.sql). Without that, a writer whose statement began before the config
 * committed queued its event for nobody, although the create had returned first: the last event of
 * a fast task (its COMPLETED) was lost to the receiver that way.
 */
async function holdTaskRow(trx: Db, tenantId: string, taskId: string): Promise<void> {
  const { rows } =
    await sql`SELECT 1 FROM tasks WHERE tenant_id = ${tenantId} AND id = ${taskId} FOR SHARE`.execute(trx);
  // Gone while the create waited for its row (retention deleted it): a config stored now would
  // belong to no task, its sealed secrets kept forever, since only a task's deletion removes its
  // configs.
  if (rows.length === 0) throw new ConflictError(tenantId, taskId, 'any');
}

/**
 * A placeholder secret stands for the stored one only on the config it was read from, at the URL
 * it was read with (RedactedSecretError). Run under the create's lock, so the row cannot change
 * between this check and the upsert.
 */
async function refuseMisplacedPlaceholder(
  trx: Db,
  tenantId: string,
  taskId: string,
  config: NewPushConfig,
): Promise<void> {
  const field = placeholderSecretField(config);
  if (!field) return;
  const stored = await trx
    .selectFrom('push_configs')
    .select('url')
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .$if(config.id !== undefined, (q) => q.where('id', '=', config.id ?? ''))
    .$if(config.id === undefined, (q) => q.where('url', '=', config.url))
    .executeTakeFirst();
  if (stored?.url !== config.url) throw new RedactedSecretError(field);
}

/**
 * A secret given back as the placeholder reads show (a client that read a config and saved it
 * back, its URL unchanged: refuseMisplacedPlaceholder) keeps the stored secret, instead of becoming the placeholder itself and sending
 * `Authorization: Bearer ********` from then on.
 */
function keptIfRedacted(given: string | undefined, column: 'token_enc' | 'auth_credentials_enc') {
  return given === REDACTED ? sql.ref(`push_configs.${column}`) : sql.ref(`excluded.${column}`);
}

/** Which secret of a config is given as the `********` reads show, if one is. */
export function placeholderSecretField(config: NewPushConfig): RedactedSecretError['field'] | undefined {
  if (config.token === REDACTED) return 'token';
  if (config.authentication?.credentials === REDACTED) return 'authentication.credentials';
  return undefined;
}
