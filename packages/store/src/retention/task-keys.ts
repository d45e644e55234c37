import { sql, type RawBuilder } from 'kysely';

export interface TaskKey {
  tenant_id: string;
  id: string;
}

/**
 * `(tenant, task) IN (the batch)` with the batch as two array parameters, so a batch of any size
 * is two bind values rather than two per task.
 */
export function taskKeyIn(
  tenantColumn: string,
  taskColumn: string,
  keys: readonly TaskKey[],
): RawBuilder<boolean> {
  const tenants = keys.map((k) => k.tenant_id);
  const ids = keys.map((k) => k.id);
  return sql<boolean>`(${sql.ref(tenantColumn)}, ${sql.ref(taskColumn)}) IN (SELECT * FROM unnest(${tenants}::text[], ${ids}::uuid[]))`;
}
