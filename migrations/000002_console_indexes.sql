-- 000002: indexes for the ops console's task list (apps/console). FROZEN once landed.
--
-- The console filters one tenant's tasks by state, agent or both and pages them newest status
-- first by keyset on (status_timestamp, id). Each filter gets an index that leads with tenant_id
-- and ends with the sort key, so any page — the first or the thousandth — is one index range read
-- of pageSize + 1 entries, never a sort of the tenant's tasks (100,000 and more). The unfiltered
-- list uses tasks_tenant_list and a context filter uses tasks_context, both from 000001.
--
-- Cost: three more entries per task row update (status_timestamp is already indexed, so task
-- updates were never HOT). Tasks change a handful of times in their life; the console is how
-- operators find the stuck ones.
CREATE INDEX tasks_console_state ON tasks (tenant_id, state, status_timestamp DESC, id DESC);
CREATE INDEX tasks_console_agent ON tasks (tenant_id, agent_id, status_timestamp DESC, id DESC);
CREATE INDEX tasks_console_agent_state ON tasks (tenant_id, agent_id, state, status_timestamp DESC, id DESC);
