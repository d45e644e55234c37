-- 000009: each tenant's pending deliveries in due order. A pusher's claim takes tenants in turn
-- (round robin, each up to its share of the pusher's slots) instead of one global oldest-due order,
-- in which one tenant's backlog of thousands of due deliveries came before every other tenant's.
-- This index lists the tenants with pending deliveries (one probe per tenant) and reads the front
-- of one tenant's due deliveries without reading the rest.
-- FROZEN once landed.
-- Like 000008, the build reads the whole delivery table inside the migration's transaction and
-- delivery writers wait for it: on a large table, migrate in a quiet window.
CREATE INDEX push_deliveries_tenant_due ON push_deliveries (tenant_id, next_attempt_at, seq)
  WHERE status = 'pending';
