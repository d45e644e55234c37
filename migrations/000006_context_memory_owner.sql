-- 000006: an agent's context memory belongs to the principal whose tasks wrote it. A contextId is
-- a label the client may choose or reuse (digest §7.1 rule 6), so the same contextId sent by two
-- principals of one tenant is two conversations, and neither reads the other's memory. FROZEN
-- once landed.
ALTER TABLE context_memory ADD COLUMN owner text NOT NULL DEFAULT '';

-- Memory written before this migration goes to the context's one principal. A context that
-- tasks of several principals share cannot be attributed: its memory keeps the owner '' that no
-- principal has, so those conversations start over, and retention removes the rows.
UPDATE context_memory m SET owner = o.owner
  FROM (SELECT tenant_id, agent_id, context_id, min(owner) AS owner
          FROM tasks GROUP BY tenant_id, agent_id, context_id
          HAVING count(DISTINCT owner) = 1) o
  WHERE m.tenant_id = o.tenant_id AND m.agent_id = o.agent_id AND m.context_id = o.context_id;

ALTER TABLE context_memory DROP CONSTRAINT context_memory_pkey;
ALTER TABLE context_memory ADD PRIMARY KEY (tenant_id, agent_id, owner, context_id, key);
