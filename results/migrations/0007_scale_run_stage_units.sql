-- 0007: per-run, per-stage unit tallies, kept by triggers in the writing
-- transaction, so the runs list and the run page read O(stages) rows
-- instead of counting every unit of a run per view. done/cached/failed
-- follow the linked units' current state exactly as the former count did
-- (done: state done and linked as produced; cached: state done and linked
-- as cached; failed: state failed); episodes counts the episodes of the
-- linked units. The triggers cover every writer (commits, links, ingest,
-- import); the INSERT ... SELECT backfills an existing database.
CREATE TABLE run_stage_units (
    run_id    TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    stage_key TEXT NOT NULL DEFAULT '',
    done      INTEGER NOT NULL DEFAULT 0,
    cached    INTEGER NOT NULL DEFAULT 0,
    failed    INTEGER NOT NULL DEFAULT 0,
    episodes  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, stage_key)
) WITHOUT ROWID;

INSERT INTO run_stage_units (run_id, stage_key, done, cached, failed, episodes)
SELECT ru.run_id, ru.stage_key,
    SUM(u.state = 'done' AND ru.cached = 0), SUM(u.state = 'done' AND ru.cached = 1), SUM(u.state = 'failed'),
    SUM((SELECT COUNT(*) FROM episodes e WHERE e.unit_fp = ru.fingerprint))
FROM run_units ru JOIN units u ON u.fingerprint = ru.fingerprint
WHERE ru.run_id IN (SELECT id FROM runs)
GROUP BY ru.run_id, ru.stage_key;

CREATE TRIGGER run_stage_units_link AFTER INSERT ON run_units
WHEN new.run_id IN (SELECT id FROM runs)
BEGIN
    INSERT INTO run_stage_units (run_id, stage_key, done, cached, failed, episodes)
    SELECT new.run_id, new.stage_key, u.state = 'done' AND new.cached = 0, u.state = 'done' AND new.cached = 1,
        u.state = 'failed', (SELECT COUNT(*) FROM episodes e WHERE e.unit_fp = new.fingerprint)
    FROM units u WHERE u.fingerprint = new.fingerprint
    ON CONFLICT (run_id, stage_key) DO UPDATE SET done = done + excluded.done, cached = cached + excluded.cached,
        failed = failed + excluded.failed, episodes = episodes + excluded.episodes;
END;

CREATE TRIGGER run_stage_units_unlink AFTER DELETE ON run_units
BEGIN
    UPDATE run_stage_units SET
        done = done - (SELECT u.state = 'done' AND old.cached = 0 FROM units u WHERE u.fingerprint = old.fingerprint),
        cached = cached - (SELECT u.state = 'done' AND old.cached = 1 FROM units u WHERE u.fingerprint = old.fingerprint),
        failed = failed - (SELECT u.state = 'failed' FROM units u WHERE u.fingerprint = old.fingerprint),
        episodes = episodes - (SELECT COUNT(*) FROM episodes e WHERE e.unit_fp = old.fingerprint)
    WHERE run_id = old.run_id AND stage_key = old.stage_key;
END;

CREATE TRIGGER run_stage_units_state AFTER UPDATE OF state ON units
WHEN old.state IS NOT new.state AND (old.state IN ('done', 'failed') OR new.state IN ('done', 'failed'))
BEGIN
    UPDATE run_stage_units SET
        done = done + ((new.state = 'done') - (old.state = 'done')) * (SELECT ru.cached = 0 FROM run_units ru
            WHERE ru.run_id = run_stage_units.run_id AND ru.fingerprint = new.fingerprint),
        cached = cached + ((new.state = 'done') - (old.state = 'done')) * (SELECT ru.cached = 1 FROM run_units ru
            WHERE ru.run_id = run_stage_units.run_id AND ru.fingerprint = new.fingerprint),
        failed = failed + (new.state = 'failed') - (old.state = 'failed')
    WHERE (run_id, stage_key) IN (SELECT run_id, stage_key FROM run_units WHERE fingerprint = new.fingerprint);
END;

CREATE TRIGGER run_stage_units_episode_add AFTER INSERT ON episodes
BEGIN
    UPDATE run_stage_units SET episodes = episodes + 1
    WHERE (run_id, stage_key) IN (SELECT run_id, stage_key FROM run_units WHERE fingerprint = new.unit_fp);
END;

CREATE TRIGGER run_stage_units_episode_drop AFTER DELETE ON episodes
BEGIN
    UPDATE run_stage_units SET episodes = episodes - 1
    WHERE (run_id, stage_key) IN (SELECT run_id, stage_key FROM run_units WHERE fingerprint = old.unit_fp);
END;
