-- 000015: ListTasks of a non-admin caller filters on tenant, agent, owner and visibility = 'task'
-- (list-tasks.ts), but 000001's list index holds only (tenant_id, owner): a caller's list of one
-- agent walked that caller's tasks of every other agent, and the hidden Message-reply rows, on
-- every page and again in the count. This one holds exactly the rows such a list reads, in its
-- order. Built online: by partition, without holding task writers up. 000016 drops the old one.
-- FROZEN once landed.
-- switchyard:online-index
CREATE INDEX tasks_agent_owner_list ON tasks (tenant_id, agent_id, owner, status_timestamp DESC, id DESC) WHERE visibility = 'task';
