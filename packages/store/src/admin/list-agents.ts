import type { Db } from '../db.ts';
import { toAgentRecord } from './admin-rows.ts';
import type { AgentRecord } from './admin-store.ts';

/** A tenant's agents by id (a handful per tenant, so no paging). */
export async function listAgents(db: Db, tenantId: string): Promise<AgentRecord[]> {
  const rows = await db
    .selectFrom('agents')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('id')
    .execute();
  return rows.map(toAgentRecord);
}
