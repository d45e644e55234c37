-- 000012: the reaper's dispatch scan reads unleased live work in (run_after, tenant_id, id) order
-- and continues each sweep where the last one stopped (find-dispatchable.ts), so a task whose job
-- was lost behind another tenant's queued backlog is still found within a few sweeps. run_after
-- alone ties for every task a batched send created in one statement; the id breaks the tie. This
-- index gives that order, as 000001's gave run_after's, and replaces it (nothing else orders by
-- it). Small: it holds only unleased live tasks.
-- FROZEN once landed.
CREATE INDEX tasks_live_dispatch_order ON tasks (run_after, tenant_id, id)
  WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING') AND lease_owner IS NULL;
DROP INDEX tasks_live_run_after;
