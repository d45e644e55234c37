-- 000014: a tenant's own cap on its runs at once across the workers (TenantRunCap), over the
-- fleet's TENANT_MAX_RUNNING: NULL follows the fleet's setting, 0 is no cap, N caps at N.
-- A nullable column without a default changes only the catalog: the table's lock is held for
-- an instant, and no row is rewritten.
-- FROZEN once landed.
ALTER TABLE tenants
  ADD COLUMN IF NOT EXISTS max_running integer
  CONSTRAINT tenants_max_running_not_negative CHECK (max_running IS NULL OR max_running >= 0);
