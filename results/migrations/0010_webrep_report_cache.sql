-- 0010: stored report results, never stale. report_stamps holds per run a
-- random epoch and a version that triggers bump in the writer's own
-- transaction on every write the report's tables read: the run's unit
-- links (run_units), and the episodes, turns' episodes, judgments (not of
-- candidates) and per-episode metrics of the units linked to the run. A
-- run gets its row the first time a result of it is cached (until then
-- there is nothing to invalidate, and the triggers update nothing), with a
-- fresh epoch, so a run deleted and created again under the same id never
-- matches an old entry. report_cache holds a result (an encoded body)
-- under a key, with the stamps ("epoch:version" of each run the result
-- reads, in the key's order) it was computed at; a reader serves it only
-- while the stamps are still the same. A reader takes the stamps before it
-- reads any data, so a write during its computation makes the entry it
-- stores unservable rather than stale. The per-row triggers of episodes,
-- judgments and metrics first test (WHEN) whether a run linked to the row's
-- unit has a stamp at all, which keeps the common write (no stamp, or a
-- unit not linked yet: its link bumps once) cheap.
CREATE TABLE report_stamps (
    run_id  TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    epoch   TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE report_cache (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key    TEXT NOT NULL,
    stamps TEXT NOT NULL,
    body   BLOB NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

CREATE TRIGGER report_stamps_link AFTER INSERT ON run_units
BEGIN UPDATE report_stamps SET version = version + 1 WHERE run_id = new.run_id; END;
CREATE TRIGGER report_stamps_unlink AFTER DELETE ON run_units
BEGIN UPDATE report_stamps SET version = version + 1 WHERE run_id = old.run_id; END;
CREATE TRIGGER report_stamps_relink AFTER UPDATE ON run_units
BEGIN UPDATE report_stamps SET version = version + 1 WHERE run_id IN (old.run_id, new.run_id); END;

CREATE TRIGGER report_stamps_episode_add AFTER INSERT ON episodes
WHEN EXISTS (SELECT 1 FROM run_units ru JOIN report_stamps s ON s.run_id = ru.run_id WHERE ru.fingerprint = new.unit_fp)
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint = new.unit_fp);
END;
CREATE TRIGGER report_stamps_episode_change AFTER UPDATE ON episodes
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint IN (old.unit_fp, new.unit_fp));
END;
CREATE TRIGGER report_stamps_episode_drop AFTER DELETE ON episodes
WHEN EXISTS (SELECT 1 FROM run_units ru JOIN report_stamps s ON s.run_id = ru.run_id WHERE ru.fingerprint = old.unit_fp)
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint = old.unit_fp);
END;

-- A turn's episode places its raw judgments; new turns hold none yet, and
-- deleting one deletes its judgments (whose trigger bumps).
CREATE TRIGGER report_stamps_turn_move AFTER UPDATE OF episode_id ON turns
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT ru.run_id FROM episodes e JOIN run_units ru ON ru.fingerprint = e.unit_fp
                     WHERE e.id IN (old.episode_id, new.episode_id));
END;

CREATE TRIGGER report_stamps_judgment_add AFTER INSERT ON judgments
WHEN new.candidate_id IS NULL AND EXISTS (SELECT 1 FROM run_units ru JOIN report_stamps s ON s.run_id = ru.run_id WHERE ru.fingerprint = new.unit_fp)
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint = new.unit_fp);
END;
CREATE TRIGGER report_stamps_judgment_change AFTER UPDATE ON judgments
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint IN (old.unit_fp, new.unit_fp));
END;
CREATE TRIGGER report_stamps_judgment_drop AFTER DELETE ON judgments
WHEN old.candidate_id IS NULL AND EXISTS (SELECT 1 FROM run_units ru JOIN report_stamps s ON s.run_id = ru.run_id WHERE ru.fingerprint = old.unit_fp)
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint = old.unit_fp);
END;

CREATE TRIGGER report_stamps_metric_add AFTER INSERT ON metrics
WHEN new.episode_id IS NOT NULL AND EXISTS (SELECT 1 FROM run_units ru JOIN report_stamps s ON s.run_id = ru.run_id WHERE ru.fingerprint = new.unit_fp)
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint = new.unit_fp);
END;
CREATE TRIGGER report_stamps_metric_change AFTER UPDATE ON metrics
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint IN (old.unit_fp, new.unit_fp));
END;
CREATE TRIGGER report_stamps_metric_drop AFTER DELETE ON metrics
WHEN old.episode_id IS NOT NULL AND EXISTS (SELECT 1 FROM run_units ru JOIN report_stamps s ON s.run_id = ru.run_id WHERE ru.fingerprint = old.unit_fp)
BEGIN
    UPDATE report_stamps SET version = version + 1
    WHERE run_id IN (SELECT run_id FROM run_units WHERE fingerprint = old.unit_fp);
END;
