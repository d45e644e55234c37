-- 000005: retention of agents' per-context memory walks it oldest first. FROZEN once landed.
CREATE INDEX context_memory_age ON context_memory (updated_at);
