-- 000013: drop 000001's run_after index, which 000012's (run_after, tenant_id, id) index covers.
-- Left in place, it is the smaller of the two, so with stale statistics the planner may walk it
-- and sort each run of equal run_after (every task one batched send created) to get the scan's
-- tie order: the reaper's sweep then reads a whole backlog to return five rows. Its own
-- migration, so 000012's build never upgrades its lock in the same transaction: this one takes
-- the table's exclusive lock only to drop, and waits for the writers in flight, not for a build.
-- FROZEN once landed.
DROP INDEX IF EXISTS tasks_live_run_after;
