-- 000010: canceled tasks that still hold the lease their run had. A cancel keeps the lease, and
-- the run releases it once it has stopped its agent; one still there long after it lapsed belongs
-- to a run that never heard the cancel (its worker died or froze), so the agent's onCanceled is
-- owed. The reaper's sweep finds those through this index even when the delayed check that the
-- cancel scheduled was lost with Redis. It holds only rows between a cancel and the release, so it
-- stays small and an idle sweep's probe of it is cheap.
-- FROZEN once landed.
CREATE INDEX tasks_canceled_kept_lease ON tasks (lease_expires_at)
  WHERE state = 'TASK_STATE_CANCELED' AND lease_owner IS NOT NULL;
