-- 000007: the A2A version whose shape a push config's webhook bodies take. A config registered
-- by an A2A 0.3 client (JSON-RPC without A2A-Version) gets 0.3 bodies: the event as a 0.3 stream
-- result (`kind`, lowercase states, `final`), which is what its receiver parses. Every other
-- config, and every config stored before this, gets 1.0 bodies (a bare StreamResponse).
-- FROZEN once landed.
ALTER TABLE push_configs ADD COLUMN wire_version text NOT NULL DEFAULT '1.0'
  CHECK (wire_version IN ('1.0', '0.3'));
