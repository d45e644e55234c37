-- 000008: the pending deliveries of each (tenant, task, config) in seq order. A pusher's claim
-- takes a delivery only when no earlier one of its config is still pending (per-task order,
-- ARCHITECTURE.md §7); this index answers that check with one probe per candidate. Without it
-- Postgres hashed every pending delivery of every tenant on each claim, and with one receiver down
-- and 5,000 deliveries waiting for it, matched each candidate against all of them (108,473 rows
-- compared, 18 ms a claim).
-- FROZEN once landed.
-- The predicate names the other statuses, not 'pending', so that a query matching it (the probe)
-- cannot be served by push_deliveries_due as well: with statistics taken while few deliveries were
-- pending, the planner took that index for the probe and read every pending delivery per candidate.
CREATE INDEX push_deliveries_pending_order ON push_deliveries (tenant_id, task_id, config_id, seq)
  WHERE status NOT IN ('delivered', 'dead');
