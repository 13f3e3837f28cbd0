-- 0012: what a run did stays what it did (issue 19).
--
-- A run's unit tallies (run_stage_units) are facts of that run: a unit it
-- failed stays failed in its tallies after a later run executes the unit
-- again. Until now a state change updated the tallies of every run linked
-- to the unit, so a later successful rerun turned a failed run's "110
-- done, 120 failed" into "230 done, 0 failed". The writer now records the
-- acting run in units.run_id with every state change (ledger.go), and the
-- state trigger updates that run's tallies only.
DROP TRIGGER IF EXISTS run_stage_units_state;
CREATE TRIGGER run_stage_units_state AFTER UPDATE OF state ON units
WHEN old.state IS NOT new.state AND (old.state IN ('done', 'failed') OR new.state IN ('done', 'failed'))
    AND new.run_id IS NOT NULL
BEGIN
    UPDATE run_stage_units SET
        done = done + ((new.state = 'done') - (old.state = 'done')) * (SELECT ru.cached = 0 FROM run_units ru
            WHERE ru.run_id = new.run_id AND ru.fingerprint = new.fingerprint),
        cached = cached + ((new.state = 'done') - (old.state = 'done')) * (SELECT ru.cached = 1 FROM run_units ru
            WHERE ru.run_id = new.run_id AND ru.fingerprint = new.fingerprint),
        failed = failed + (new.state = 'failed') - (old.state = 'failed')
    WHERE run_id = new.run_id
        AND stage_key IN (SELECT stage_key FROM run_units WHERE run_id = new.run_id AND fingerprint = new.fingerprint);
END;

-- The code that ran a run (module version, VCS revision, dirty flag; see
-- internal/buildinfo), as JSON.
ALTER TABLE runs ADD COLUMN code_json TEXT NOT NULL DEFAULT '{}';

-- Exact LLM counters after any number of kills. A cached reply says
-- whether committed work counted its usage (counted): a reply fetched by
-- work lost to an interruption is counted by the request that reuses it,
-- once. Replies cached before this migration were counted by their
-- commits (or are unknown), so they read as counted.
ALTER TABLE llm_calls ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;

-- Every HTTP attempt is recorded here, and its run's attempts counter
-- bumped, in one transaction before it is sent; the row goes when its
-- outcome is stored (the reply in the cache, or the failure). A row whose
-- run died was in flight at the kill: the next run marks it lost and
-- counts it in llm.<role>.lost_in_flight of the run that sent it (its
-- usage is unknown). id is the X-Request-Id the attempt carried.
CREATE TABLE llm_attempts (
    id        TEXT PRIMARY KEY,
    run_id    TEXT NOT NULL,
    stage_key TEXT NOT NULL DEFAULT '',
    role      TEXT NOT NULL,
    key       TEXT NOT NULL,
    attempt   INTEGER NOT NULL,
    sent_at   INTEGER NOT NULL,
    lost      INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX llm_attempts_open ON llm_attempts(lost, run_id);
