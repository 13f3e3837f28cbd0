-- 0005: per-role LLM latency histograms (committed with the units they
-- time, like counters), the owner of a run (pid, host, heartbeat) so a
-- reader can tell a killed run from a running one, and unit claims so two
-- processes on one database do not execute the same unit.

CREATE TABLE llm_latency (
    run_id    TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    stage_key TEXT NOT NULL DEFAULT '',
    role      TEXT NOT NULL,
    le_us     INTEGER NOT NULL, -- bucket upper bound, microseconds
    n         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, stage_key, role, le_us)
) WITHOUT ROWID;

ALTER TABLE runs ADD COLUMN owner_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN owner_host TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN heartbeat_at INTEGER;

CREATE TABLE unit_claims (
    fingerprint TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL,
    claimed_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX unit_claims_by_run ON unit_claims(run_id);
