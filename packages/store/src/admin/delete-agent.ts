import type { Db } from '../db.ts';

/** Tasks keep their agent_id after the agent goes (history stays readable). */
export async function deleteAgent(db: Db, tenantId: string, agentId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('agents')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', agentId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
