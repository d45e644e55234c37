-- 000003: the W3C trace context of the request that created a task, so work done later for it
-- outside any request (push deliveries) joins the task's trace. FROZEN once landed.
ALTER TABLE tasks ADD COLUMN trace_context jsonb;
