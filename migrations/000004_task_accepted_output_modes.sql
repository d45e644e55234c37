-- 000004: the client's acceptedOutputModes (SendMessageConfiguration), kept with the task so the
-- agent that runs it later, on another process, can tailor its output (digest §7.2 rule 14).
-- FROZEN once landed.
ALTER TABLE tasks ADD COLUMN accepted_output_modes jsonb;
