-- 000011: the push configs of a task as they are now, not as the calling statement's snapshot saw
-- them. A task writer queues one delivery per config in the statement that writes the event. That
-- statement's snapshot is taken when it starts; a CreateTaskPushNotificationConfig that commits
-- while the writer waits for the task row (the create holds it FOR SHARE) is not in it, so the
-- event was queued for nobody although the create had returned first. The writers call this
-- function after they hold the row; VOLATILE, its query takes a fresh snapshot (Postgres,
-- "Function Volatility Categories"), which includes every config committed before the writer got
-- the row. PL/pgSQL keeps its plan per connection, and with the tenant a parameter the generic plan
-- prunes push_configs' partitions when it starts.
-- FROZEN once landed.
CREATE FUNCTION task_push_config_ids(p_tenant_id text, p_task_id uuid)
  RETURNS TABLE (config_id text)
  LANGUAGE plpgsql VOLATILE STRICT
AS $$
BEGIN
  RETURN QUERY SELECT id FROM push_configs WHERE tenant_id = p_tenant_id AND task_id = p_task_id;
END
$$;
