import { randomUUID } from 'node:crypto';
import { createTestDatabase } from '@switchyard/testing';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createDb, type Db } from '../src/db.ts';
import { PostgresOutboxStore } from '../src/outbox/index.ts';
import type { SecretBox } from '../src/secret-box.ts';

/**
 * Raw inserts for outbox and retention tests: tasks, events, push configs and deliveries written
 * directly, with explicit timestamps, so these tests depend on no other store operation.
 */

export const TERMINAL = 'TASK_STATE_COMPLETED';
export const LIVE = 'TASK_STATE_WORKING';

export interface SeedTask {
  tenantId: string;
  taskId?: string;
  state?: string;
  updatedAt?: Date;
}

export async function seedTask(db: Db, t: SeedTask): Promise<string> {
  const id = t.taskId ?? randomUUID();
  const at = t.updatedAt ?? new Date();
  await db
    .insertInto('tasks')
    .values({
      tenant_id: t.tenantId,
      id,
      context_id: `ctx-${id}`,
      agent_id: 'echo',
      owner: 'alice',
      visibility: 'task',
      state: t.state ?? LIVE,
      version: 1,
      status_timestamp: at,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

/** The payload a delivery of `seq` must carry: its seq is in the metadata so tests can tell them apart. */
export function eventPayload(taskId: string, seq: number) {
  return { statusUpdate: { taskId, contextId: `ctx-${taskId}`, status: { state: LIVE }, metadata: { seq } } };
}

export async function seedEvents(
  db: Db,
  tenantId: string,
  taskId: string,
  seqs: number[],
  createdAt = new Date(),
): Promise<void> {
  if (seqs.length === 0) return;
  await db
    .insertInto('task_events')
    .values(
      seqs.map((seq) => ({
        tenant_id: tenantId,
        task_id: taskId,
        seq,
        kind: 'statusUpdate' as const,
        payload: JSON.stringify(eventPayload(taskId, seq)),
        created_at: createdAt,
      })),
    )
    .execute();
}

export interface SeedPushConfig {
  tenantId: string;
  taskId: string;
  id?: string;
  url?: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

export async function seedPushConfig(db: Db, secrets: SecretBox, c: SeedPushConfig): Promise<string> {
  const id = c.id ?? 'hook';
  await db
    .insertInto('push_configs')
    .values({
      tenant_id: c.tenantId,
      task_id: c.taskId,
      id,
      url: c.url ?? 'https://hooks.example.com/a2a',
      token_enc: c.token === undefined ? null : secrets.seal(c.token),
      auth_scheme: c.authentication?.scheme ?? null,
      auth_credentials_enc:
        c.authentication?.credentials === undefined ? null : secrets.seal(c.authentication.credentials),
    })
    .execute();
  return id;
}

export interface SeedDeliveries {
  tenantId: string;
  taskId: string;
  configId: string;
  seqs: number[];
  status?: 'pending' | 'delivered' | 'dead';
  nextAttemptAt?: Date;
  createdAt?: Date;
  deliveredAt?: Date;
}

export async function seedDeliveries(db: Db, d: SeedDeliveries): Promise<void> {
  if (d.seqs.length === 0) return;
  await db
    .insertInto('push_deliveries')
    .values(
      d.seqs.map((seq) => ({
        tenant_id: d.tenantId,
        task_id: d.taskId,
        config_id: d.configId,
        seq,
        status: d.status ?? 'pending',
        next_attempt_at: d.nextAttemptAt ?? new Date(Date.now() - 1000),
        created_at: d.createdAt ?? new Date(),
        delivered_at: d.deliveredAt ?? (d.status === 'delivered' ? new Date() : null),
      })),
    )
    .execute();
}

/** A live task with events `seqs`, one push config and a due pending delivery per event. */
export async function seedPushedTask(
  db: Db,
  secrets: SecretBox,
  tenantId: string,
  seqs: number[],
  config: Omit<SeedPushConfig, 'tenantId' | 'taskId'> = {},
): Promise<{ taskId: string; configId: string }> {
  const taskId = await seedTask(db, { tenantId });
  await seedEvents(db, tenantId, taskId, seqs);
  const configId = await seedPushConfig(db, secrets, { tenantId, taskId, ...config });
  await seedDeliveries(db, { tenantId, taskId, configId, seqs });
  return { taskId, configId };
}

/** Simulates a lock that lapsed (a pusher that hung or died) without sleeping in the test. */
export async function expireLocks(db: Db, tenantId: string, taskId: string): Promise<void> {
  await db
    .updateTable('push_deliveries')
    .set({ locked_until: new Date(Date.now() - 60_000) })
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where('locked_by', 'is not', null)
    .execute();
}

/** A test file's own migrated database, its outbox store, and these tenants. */
export async function openOutboxDatabase(secrets: SecretBox, tenantIds: readonly string[]) {
  const testDb = await createTestDatabase();
  const db = createDb(testDb.pool);
  const admin = new PostgresAdminStore({ db, secrets });
  for (const id of tenantIds) await admin.createTenant({ id, name: id });
  return { testDb, db, outbox: new PostgresOutboxStore({ db, secrets }) };
}
