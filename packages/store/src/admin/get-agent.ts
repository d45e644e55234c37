import type { Db } from '../db.ts';
import { toAgentRecord } from './admin-rows.ts';
import type { AgentRecord } from './admin-store.ts';

export async function getAgent(db: Db, tenantId: string, agentId: string): Promise<AgentRecord | null> {
  const row = await db
    .selectFrom('agents')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', agentId)
    .executeTakeFirst();
  return row ? toAgentRecord(row) : null;
}
