import { sql } from 'kysely';

/**
 * "Pending", spelled as the predicate of push_deliveries_pending_order (migration 000008): the
 * statuses other than pending (the table's CHECK allows three), as literals. A condition written
 * this way can be served by that index and never by push_deliveries_due (WHERE status =
 * 'pending'), which the planner took instead when its statistics said few deliveries were pending.
 */
export const NOT_PENDING = [sql.lit('delivered' as const), sql.lit('dead' as const)];
