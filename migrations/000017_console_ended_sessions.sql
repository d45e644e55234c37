-- 000017: console sessions signed out before their expiry. A session cookie is signed, not
-- stored, so a sign-out could only clear the browser's copy: a copied cookie went on working
-- until it expired (CONSOLE_SESSION_TTL_MS may be long). Each sign-out is kept here until the
-- session would have expired; every console replica checks it. A small table of its own.
-- FROZEN once landed.
CREATE TABLE IF NOT EXISTS console_ended_sessions (
  sid text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
