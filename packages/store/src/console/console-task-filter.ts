import type { SelectQueryBuilder } from 'kysely';
import type { Database } from '../database.ts';
import { isTaskId } from '../tasks/task-row.ts';
import type { ConsoleTaskFilter } from './console-types.ts';

/**
 * The WHERE clause shared by the console's list and count, so a page and its count can never
 * disagree. Equality filters only: each combination has an index leading with
 * (tenant_id, <filter columns>) and ending with the sort key (migrations 000001 and 000002).
 */
export function whereConsoleTaskFilter<O>(
  query: SelectQueryBuilder<Database, 'tasks', O>,
  filter: ConsoleTaskFilter,
): SelectQueryBuilder<Database, 'tasks', O> {
  let q = query.where('tenant_id', '=', filter.tenantId);
  if ((filter.visibility ?? 'task') === 'task') q = q.where('visibility', '=', 'task');
  if (filter.agentId !== undefined) q = q.where('agent_id', '=', filter.agentId);
  if (filter.state !== undefined) q = q.where('state', '=', filter.state);
  if (filter.contextId !== undefined) q = q.where('context_id', '=', filter.contextId);
  const search = filter.search;
  if (search !== undefined) {
    // A uuid may be either id; the OR becomes a BitmapOr of the primary key and tasks_context.
    q = isTaskId(search)
      ? q.where((eb) => eb.or([eb('id', '=', search.toLowerCase()), eb('context_id', '=', search)]))
      : q.where('context_id', '=', search);
  }
  return q;
}
