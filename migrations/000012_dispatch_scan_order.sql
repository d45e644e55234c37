-- 000012: the reaper's dispatch scan reads unleased live work in (run_after, tenant_id, id) order
-- and continues each sweep where the last one stopped (find-dispatchable.ts), so a task whose job
-- was lost behind another tenant's queued backlog is still found within a few sweeps. run_after
-- alone ties for every task a batched send created in one statement; the id breaks the tie. Small:
-- it holds only unleased live tasks. But building it reads every partition of tasks while task
-- writers wait for it: on a large table, migrate in a quiet window. 000001's run_after index is
-- left in place: dropping it here would upgrade the build's lock to an exclusive one inside the
-- same transaction, which can deadlock with a writer already holding a row.
-- FROZEN once landed.
CREATE INDEX tasks_live_dispatch_order ON tasks (run_after, tenant_id, id)
  WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING') AND lease_owner IS NULL;
