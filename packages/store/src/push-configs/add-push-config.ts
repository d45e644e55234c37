import { randomUUID } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import { sql, type Selectable } from 'kysely';
import type { PushConfigsTable } from '../database.ts';
import type { Db } from '../db.ts';
import { RedactedSecretError } from '../errors.ts';
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
  let registeredAt: number | undefined;
  const run = async (trx: Db) => {
    const lockKey = `${tenantId}/${taskId}`;
    await sql`SELECT pg_advisory_xact_lock(${PUSH_CONFIG_LOCK_CLASS}, hashtext(${lockKey}))`.execute(trx);
    if (alone) registeredAt = (await holdTaskRow(trx, tenantId, taskId))?.version;
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
  if (!alone) return run(db);
  const added = await db.transaction().execute(run);
  if (added?.id && registeredAt !== undefined)
    await catchUpDeliveries(db, tenantId, taskId, added.id, registeredAt);
  return added;
}

/**
 * The task's version, its row held (FOR SHARE) until the config commits: a writer already
 * holding the row commits first (its event then precedes the config, and is not owed to it), and
 * one that comes later waits for the config.
 */
async function holdTaskRow(trx: Db, tenantId: string, taskId: string): Promise<HeldRow | undefined> {
  const { rows } = await sql<HeldRow>`
    SELECT version, tableoid::int AS tableoid, ctid::text AS ctid FROM tasks
     WHERE tenant_id = ${tenantId} AND id = ${taskId} FOR SHARE`.execute(trx);
  return rows[0];
}

/** The task row held: its version, and where it lies (for writerQueuedFor). */
interface HeldRow {
  version: number;
  tableoid: number;
  ctid: string;
}

/**
 * Queues for the new config the events the task's writers committed after it but without it. A
 * writer reads the task's configs in its statement's snapshot: one whose statement began before
 * the config committed, then waited for the row (held above), commits after the config and queues
 * nothing for it, although the client's create had returned: the last event of a fast task (its
 * COMPLETED) was lost to the receiver that way. Once the row can be held again, those writers
 * have committed; holding it while queueing keeps later writers (and their deliveries) after.
 * Best effort: a failure here leaves only that narrow case as it was, so it does not fail the
 * create, whose config is stored.
 */
async function catchUpDeliveries(
  db: Db,
  tenantId: string,
  taskId: string,
  configId: string,
  registeredAt: number,
): Promise<void> {
  try {
    // Until no writer is queued for the row: one that waited for the create may not have taken
    // the row back yet when this pass holds it (a row that no one holds is taken at once, ahead
    // of a queued writer), and then commits after this pass, without the config.
    for (let pass = 0; pass < CATCH_UP_PASSES; pass++) {
      const writerQueued = await db.transaction().execute(async (trx) => {
        const held = await holdTaskRow(trx, tenantId, taskId);
        // A new statement: its snapshot includes what the writers waited for above committed.
        await sql`
          INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq)
          SELECT e.tenant_id, e.task_id, pc.id, e.seq
            FROM task_events e
            JOIN push_configs pc ON pc.tenant_id = e.tenant_id AND pc.task_id = e.task_id AND pc.id = ${configId}
            JOIN tasks t ON t.tenant_id = e.tenant_id AND t.id = e.task_id AND t.visibility = 'task'
           WHERE e.tenant_id = ${tenantId} AND e.task_id = ${taskId} AND e.seq > ${registeredAt}
          ON CONFLICT DO NOTHING`.execute(trx);
        return held !== undefined && (await writerQueuedFor(trx, held));
      });
      if (!writerQueued) return;
    }
  } catch {
    // See above: the create stands.
  }
}

/** Passes of the catch-up at most: each waits for the writers queued in the one before. */
const CATCH_UP_PASSES = 10;

/**
 * Whether another transaction is queued for the task's row: a writer that has to wait for a row
 * holds the row's tuple lock (a heavyweight lock in pg_locks) from before it sleeps until it has
 * the row, also in the moment between its wake-up and taking the row.
 */
async function writerQueuedFor(trx: Db, row: HeldRow): Promise<boolean> {
  const [page, tuple] = row.ctid.replace(/[()]/g, '').split(',').map(Number);
  const { rows } = await sql<{ queued: boolean }>`
    SELECT EXISTS (
      SELECT 1 FROM pg_locks
       WHERE locktype = 'tuple' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND relation = ${row.tableoid}::oid AND page = ${page}::int AND tuple = ${tuple}::int
         AND pid <> pg_backend_pid()) AS queued`.execute(trx);
  return rows[0]?.queued === true;
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
