import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from '../db.ts';
import type { PlanNode } from './console-types.ts';

/**
 * The plan Postgres picks for a query, with its real parameters (EXPLAIN without ANALYZE: nothing
 * runs). The console's tests use it to prove every page is an index range, never a Seq Scan.
 */
export async function explainQuery(db: Db, query: Compilable): Promise<PlanNode> {
  const compiled = query.compile();
  const result = await db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
    CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${compiled.sql}`, [...compiled.parameters]),
  );
  const plan = result.rows[0]?.['QUERY PLAN'][0]?.Plan;
  if (!plan) throw new Error('EXPLAIN returned no plan');
  return plan;
}

/** Every node of a plan tree, depth first. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}
