import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';

/** How the secrets at rest stood, and what a reseal did. */
export interface ResealReport {
  /** Sealed again with the current key. */
  resealed: number;
  /** Sealed with the current key already. */
  current: number;
  /** Sealed with a key the box does not have: left as they are (delivery of them fails). */
  unreadable: number;
}

const BATCH = 500;

/** One sealed value, where it lives, and how to write it back only if it has not changed. */
interface Sealed {
  value: Buffer;
  write(resealed: Buffer): Promise<boolean>;
}

/**
 * Seals every secret at rest again with the current key (SWITCHYARD_SECRET_KEY), opening each with
 * whichever listed key sealed it: tenants' webhook signing secrets, push configs' tokens and
 * credentials, upstream agents' credentials. After a key rotation, once this reports nothing
 * left under an old key, SWITCHYARD_SECRET_KEY_PREVIOUS can be emptied. Each value is written
 * back only if it is still the one read (a concurrent rotation or registration wins), in batches
 * of short statements, so it runs beside live traffic. Idempotent.
 */
export async function resealSecrets(db: Db, box: SecretBox): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, current: 0, unreadable: 0 };
  const visit = async (sealed: Sealed) => {
    if (box.sealedWithCurrentKey(sealed.value)) return void report.current++;
    let plain: string;
    try {
      plain = box.open(sealed.value);
    } catch {
      return void report.unreadable++;
    }
    if (await sealed.write(box.seal(plain))) report.resealed++;
  };
  await resealTenants(db, visit);
  await resealPushConfigs(db, visit);
  await resealAgents(db, visit);
  return report;
}

type Visit = (sealed: Sealed) => Promise<void>;

async function resealTenants(db: Db, visit: Visit): Promise<void> {
  for (let after = ''; ;) {
    const rows = await db
      .selectFrom('tenants')
      .select(['id', 'webhook_secret_enc'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of rows)
      await visit({
        value: row.webhook_secret_enc,
        write: async (resealed) =>
          (
            await db
              .updateTable('tenants')
              .set({ webhook_secret_enc: resealed })
              .where('id', '=', row.id)
              .where('webhook_secret_enc', '=', row.webhook_secret_enc)
              .executeTakeFirst()
          ).numUpdatedRows > 0n,
      });
    if (rows.length < BATCH) return;
    after = rows.at(-1)!.id;
  }
}

async function resealPushConfigs(db: Db, visit: Visit): Promise<void> {
  let after: { tenant_id: string; task_id: string; id: string } | undefined;
  for (;;) {
    const rows = await db
      .selectFrom('push_configs')
      .select(['tenant_id', 'task_id', 'id', 'token_enc', 'auth_credentials_enc'])
      .where((eb) => eb.or([eb('token_enc', 'is not', null), eb('auth_credentials_enc', 'is not', null)]))
      .$if(after !== undefined, (q) =>
        q.where(
          sql<boolean>`(tenant_id, task_id, id) > (${after?.tenant_id}, ${after?.task_id}::uuid, ${after?.id})`,
        ),
      )
      .orderBy('tenant_id')
      .orderBy('task_id')
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      for (const column of ['token_enc', 'auth_credentials_enc'] as const) {
        const value = row[column];
        if (!value) continue;
        await visit({
          value,
          write: async (resealed) =>
            (
              await db
                .updateTable('push_configs')
                .set({ [column]: resealed })
                .where('tenant_id', '=', row.tenant_id)
                .where('task_id', '=', row.task_id)
                .where('id', '=', row.id)
                .where(column, '=', value)
                .executeTakeFirst()
            ).numUpdatedRows > 0n,
        });
      }
    }
    if (rows.length < BATCH) return;
    const last = rows.at(-1)!;
    after = { tenant_id: last.tenant_id, task_id: last.task_id, id: last.id };
  }
}

/** Upstream agents keep their credentials sealed, base64, in settings.sealedCredentials. */
async function resealAgents(db: Db, visit: Visit): Promise<void> {
  let after: { tenant_id: string; id: string } | undefined;
  for (;;) {
    const rows = await db
      .selectFrom('agents')
      .select(['tenant_id', 'id'])
      .select(sql<string>`settings->>'sealedCredentials'`.as('sealed'))
      .where(sql<boolean>`settings ? 'sealedCredentials'`)
      .$if(after !== undefined, (q) =>
        q.where(sql<boolean>`(tenant_id, id) > (${after?.tenant_id}, ${after?.id})`),
      )
      .orderBy('tenant_id')
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of rows)
      await visit({
        value: Buffer.from(row.sealed, 'base64'),
        write: async (resealed) =>
          (
            await db
              .updateTable('agents')
              .set({
                settings: sql`jsonb_set(settings, '{sealedCredentials}', to_jsonb(${resealed.toString('base64')}::text))`,
              })
              .where('tenant_id', '=', row.tenant_id)
              .where('id', '=', row.id)
              .where(sql<boolean>`settings->>'sealedCredentials' = ${row.sealed}`)
              .executeTakeFirst()
          ).numUpdatedRows > 0n,
      });
    if (rows.length < BATCH) return;
    const last = rows.at(-1)!;
    after = { tenant_id: last.tenant_id, id: last.id };
  }
}
