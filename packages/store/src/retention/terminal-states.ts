import { TERMINAL_STATES } from '@switchyard/protocol';
import { sql } from 'kysely';

/**
 * The protocol's terminal states as SQL literals, not parameters, so the planner can match the
 * partial index tasks_terminal_age (whose predicate lists exactly these) under any plan.
 */
export const TERMINAL_STATE_LITERALS = TERMINAL_STATES.map((s) => sql.lit(s));
