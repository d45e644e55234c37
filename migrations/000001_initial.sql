-- 000001: the initial schema. FROZEN once landed: change the schema only with a new numbered file.
--
-- Every tenant-owned row carries tenant_id, every key and index leads with it, and the large tables
-- are hash-partitioned by it (ARCHITECTURE.md §3 rule 6, §10 "Scaling out": the same keys let Citus
-- distribute these tables by tenant_id later).

CREATE TABLE tenants (
  id                 text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name               text NOT NULL,
  -- Standard Webhooks signing secret for this tenant's push deliveries, AES-256-GCM encrypted.
  webhook_secret_enc bytea NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  disabled_at        timestamptz
);

CREATE TABLE api_keys (
  id          uuid PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id),
  principal   text NOT NULL,
  role        text NOT NULL CHECK (role IN ('user', 'tenant_admin')),
  -- SHA-256 of the key: keys are 256-bit random strings, so a fast hash is the right one (no salt,
  -- no KDF) and lets a lookup be one index probe.
  key_hash    bytea NOT NULL UNIQUE,
  key_prefix  text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);

CREATE TABLE agents (
  tenant_id  text NOT NULL REFERENCES tenants (id),
  id         text NOT NULL CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  -- The card as the operator wrote it (name, description, version, skills, modes, capabilities);
  -- interfaces and security are filled in by the gateway from its public URL.
  card       jsonb NOT NULL,
  -- Which bundled executor module runs this agent, and its settings.
  executor   text NOT NULL,
  settings   jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE tasks (
  tenant_id        text NOT NULL,
  id               uuid NOT NULL,
  context_id       text NOT NULL,
  agent_id         text NOT NULL,
  owner            text NOT NULL,
  -- 'pending': created, the agent has not yet chosen between a Message reply and a Task;
  -- 'task': a visible A2A Task; 'message': answered with a Message (never visible to GetTask).
  visibility       text NOT NULL CHECK (visibility IN ('pending', 'task', 'message')),
  state            text NOT NULL CHECK (state IN (
                     'TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED',
                     'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_INPUT_REQUIRED',
                     'TASK_STATE_REJECTED', 'TASK_STATE_AUTH_REQUIRED')),
  -- Bumped by every change that appends an event: version N is event sequence N.
  version          integer NOT NULL CHECK (version >= 1),
  status_message   jsonb,
  status_timestamp timestamptz NOT NULL,
  metadata         jsonb,
  reply            jsonb,
  lease_owner      text,
  lease_expires_at timestamptz,
  attempts         integer NOT NULL DEFAULT 0,
  -- Earliest time the task may be (re)dispatched: backoff after an error or a lapsed lease.
  run_after        timestamptz NOT NULL DEFAULT now(),
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
) PARTITION BY HASH (tenant_id);

-- ListTasks for one principal and for tenant admins: newest status first, id as the tie-breaker
-- that makes the cursor total.
CREATE INDEX tasks_owner_list ON tasks (tenant_id, owner, status_timestamp DESC, id DESC);
CREATE INDEX tasks_tenant_list ON tasks (tenant_id, status_timestamp DESC, id DESC);
CREATE INDEX tasks_context ON tasks (tenant_id, context_id, status_timestamp DESC);
-- The reaper's scans touch only live work.
CREATE INDEX tasks_live_lease ON tasks (lease_expires_at)
  WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING');
CREATE INDEX tasks_live_run_after ON tasks (run_after)
  WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING') AND lease_owner IS NULL;
-- Retention of terminal tasks.
CREATE INDEX tasks_terminal_age ON tasks (updated_at)
  WHERE state IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED');

CREATE TABLE task_messages (
  tenant_id  text NOT NULL,
  task_id    uuid NOT NULL,
  position   integer NOT NULL,
  message    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, task_id, position)
) PARTITION BY HASH (tenant_id);

-- One row per artifact chunk; seq is the task version that wrote it, so a chunk exists exactly
-- once. The whole artifact is the concatenation of its chunks since the last non-append chunk.
CREATE TABLE artifact_chunks (
  tenant_id   text NOT NULL,
  task_id     uuid NOT NULL,
  seq         integer NOT NULL,
  artifact_id text NOT NULL,
  append      boolean NOT NULL,
  last_chunk  boolean NOT NULL,
  name        text,
  description text,
  parts       jsonb NOT NULL,
  metadata    jsonb,
  extensions  jsonb,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, task_id, seq)
) PARTITION BY HASH (tenant_id);

-- The per-task event log: seq = task version after the change. Drives SSE, Last-Event-ID resume and
-- push delivery.
CREATE TABLE task_events (
  tenant_id  text NOT NULL,
  task_id    uuid NOT NULL,
  seq        integer NOT NULL,
  kind       text NOT NULL CHECK (kind IN ('task', 'message', 'statusUpdate', 'artifactUpdate')),
  payload    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, task_id, seq)
) PARTITION BY HASH (tenant_id);
CREATE INDEX task_events_age ON task_events (created_at);

-- messageId idempotency (ARCHITECTURE.md §3 rule 5): unique per tenant, kept for the retry horizon.
CREATE TABLE idempotency_keys (
  tenant_id  text NOT NULL,
  message_id text NOT NULL,
  principal  text NOT NULL,
  task_id    uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, message_id)
) PARTITION BY HASH (tenant_id);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);

-- What an agent remembers about a conversation (e.g. an answer reused by a later task in the context).
CREATE TABLE context_memory (
  tenant_id  text NOT NULL,
  agent_id   text NOT NULL,
  context_id text NOT NULL,
  key        text NOT NULL,
  value      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, agent_id, context_id, key)
);

CREATE TABLE push_configs (
  tenant_id            text NOT NULL,
  task_id              uuid NOT NULL,
  id                   text NOT NULL,
  url                  text NOT NULL,
  -- token and credentials are secrets: AES-256-GCM encrypted at rest, redacted when read back.
  token_enc            bytea,
  auth_scheme          text,
  auth_credentials_enc bytea,
  created_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, task_id, id)
) PARTITION BY HASH (tenant_id);

-- The push outbox: one row per (config, event), written in the event's transaction.
CREATE TABLE push_deliveries (
  tenant_id       text NOT NULL,
  task_id         uuid NOT NULL,
  config_id       text NOT NULL,
  seq             integer NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_by       text,
  locked_until    timestamptz,
  last_error      text,
  last_status     integer,
  created_at      timestamptz NOT NULL DEFAULT now(),
  delivered_at    timestamptz,
  PRIMARY KEY (tenant_id, task_id, config_id, seq),
  FOREIGN KEY (tenant_id, task_id, config_id) REFERENCES push_configs (tenant_id, task_id, id) ON DELETE CASCADE
) PARTITION BY HASH (tenant_id);
CREATE INDEX push_deliveries_due ON push_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX push_deliveries_dead ON push_deliveries (tenant_id, created_at) WHERE status = 'dead';
CREATE INDEX push_deliveries_done_age ON push_deliveries (delivered_at) WHERE status = 'delivered';

-- Eight hash partitions per tenant-keyed table: enough to spread vacuum and index size, few enough
-- to keep planning cheap. Moving to Citus replaces these with distributed tables on tenant_id.
DO $$
DECLARE
  t text;
  i int;
BEGIN
  FOREACH t IN ARRAY ARRAY['tasks', 'task_messages', 'artifact_chunks', 'task_events',
                           'idempotency_keys', 'push_configs', 'push_deliveries'] LOOP
    FOR i IN 0..7 LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES WITH (MODULUS 8, REMAINDER %s)',
                     t || '_p' || i, t, i);
    END LOOP;
  END LOOP;
END $$;
