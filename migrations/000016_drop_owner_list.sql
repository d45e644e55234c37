-- 000016: drop 000001's (tenant_id, owner) list index. Every list by owner names its agent too
-- (ListTasks is served per agent), and 000015's index serves those; kept, it would cost every
-- task write an index entry that nothing reads. Its own migration, as 000013's drop was: the
-- table's exclusive lock is taken for an instant, only to drop.
-- FROZEN once landed.
DROP INDEX IF EXISTS tasks_owner_list;
