import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';

/**
 * The live states as SQL literals, not parameters, so the planner can match the partial indexes
 * tasks_live_lease and tasks_live_dispatch_order (whose predicates list exactly these) under a generic
 * plan. Sent as parameters, the predicate cannot be proven when the plan is made, and the reaper's
 * sweeps scanned every task of every tenant, history included, on every tick.
 */
export const LIVE_STATE_LITERALS = [TaskState.SUBMITTED, TaskState.WORKING].map((s) => sql.lit(s));
