import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { toAgentRecord } from './admin-rows.ts';
import type { AgentInput, AgentRecord } from './admin-store.ts';

/** Creates or replaces an agent's card, executor and settings; created_at survives a replace. */
export async function upsertAgent(db: Db, input: AgentInput): Promise<AgentRecord> {
  const card = JSON.stringify(input.card);
  const settings = JSON.stringify(input.settings ?? {});
  const row = await db
    .insertInto('agents')
    .values({ tenant_id: input.tenantId, id: input.id, card, executor: input.executor, settings })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'id']).doUpdateSet({
        card: (eb) => eb.ref('excluded.card'),
        executor: (eb) => eb.ref('excluded.executor'),
        settings: (eb) => eb.ref('excluded.settings'),
        updated_at: sql<Date>`now()`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAgentRecord(row);
}
