-- 0009: the units of each run that hold report values, so the report's scan
-- reads only those instead of every unit linked to the run (most units
-- generate text and hold no values). A (run, unit) pair is here exactly
-- when the unit is linked to the run (run_units) and has a judgment that is
-- not of a candidate or a metric of an episode: the rows the scan reads.
-- Triggers on run_units, judgments and metrics keep it in the writer's own
-- transaction; the migration fills it for existing databases. Inserts test
-- for an existing row rather than use OR IGNORE, which the conflict policy
-- of an outer statement (a foreign key's SET NULL, say) would override.
CREATE TABLE run_scored_units (
    run_id      TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (run_id, fingerprint)
) WITHOUT ROWID;

INSERT INTO run_scored_units (run_id, fingerprint)
SELECT ru.run_id, ru.fingerprint FROM run_units ru
WHERE EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = ru.fingerprint AND j.candidate_id IS NULL)
   OR EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = ru.fingerprint AND m.episode_id IS NOT NULL);

CREATE TRIGGER run_scored_units_link AFTER INSERT ON run_units
WHEN EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = new.fingerprint AND j.candidate_id IS NULL)
  OR EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = new.fingerprint AND m.episode_id IS NOT NULL)
BEGIN
    INSERT INTO run_scored_units (run_id, fingerprint)
    SELECT new.run_id, new.fingerprint
    WHERE NOT EXISTS (SELECT 1 FROM run_scored_units s WHERE s.run_id = new.run_id AND s.fingerprint = new.fingerprint);
END;

CREATE TRIGGER run_scored_units_unlink AFTER DELETE ON run_units
BEGIN
    DELETE FROM run_scored_units WHERE run_id = old.run_id AND fingerprint = old.fingerprint;
END;

CREATE TRIGGER run_scored_units_relink AFTER UPDATE OF run_id, fingerprint ON run_units
BEGIN
    DELETE FROM run_scored_units WHERE run_id = old.run_id AND fingerprint = old.fingerprint;
    INSERT INTO run_scored_units (run_id, fingerprint)
    SELECT new.run_id, new.fingerprint
    WHERE NOT EXISTS (SELECT 1 FROM run_scored_units s WHERE s.run_id = new.run_id AND s.fingerprint = new.fingerprint)
      AND (EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = new.fingerprint AND j.candidate_id IS NULL)
       OR EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = new.fingerprint AND m.episode_id IS NOT NULL));
END;

CREATE TRIGGER run_scored_units_judgment_add AFTER INSERT ON judgments
WHEN new.candidate_id IS NULL
BEGIN
    INSERT INTO run_scored_units (run_id, fingerprint)
    SELECT ru.run_id, ru.fingerprint FROM run_units ru WHERE ru.fingerprint = new.unit_fp
      AND NOT EXISTS (SELECT 1 FROM run_scored_units s WHERE s.run_id = ru.run_id AND s.fingerprint = ru.fingerprint);
END;

CREATE TRIGGER run_scored_units_judgment_change AFTER UPDATE OF unit_fp, candidate_id ON judgments
BEGIN
    DELETE FROM run_scored_units
    WHERE (run_id, fingerprint) IN (SELECT run_id, fingerprint FROM run_units WHERE fingerprint = old.unit_fp)
      AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = old.unit_fp AND j.candidate_id IS NULL)
      AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = old.unit_fp AND m.episode_id IS NOT NULL);
    INSERT INTO run_scored_units (run_id, fingerprint)
    SELECT ru.run_id, ru.fingerprint FROM run_units ru WHERE ru.fingerprint = new.unit_fp AND new.candidate_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM run_scored_units s WHERE s.run_id = ru.run_id AND s.fingerprint = ru.fingerprint);
END;

CREATE TRIGGER run_scored_units_judgment_drop AFTER DELETE ON judgments
WHEN old.candidate_id IS NULL
BEGIN
    DELETE FROM run_scored_units
    WHERE (run_id, fingerprint) IN (SELECT run_id, fingerprint FROM run_units WHERE fingerprint = old.unit_fp)
      AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = old.unit_fp AND j.candidate_id IS NULL)
      AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = old.unit_fp AND m.episode_id IS NOT NULL);
END;

CREATE TRIGGER run_scored_units_metric_add AFTER INSERT ON metrics
WHEN new.episode_id IS NOT NULL
BEGIN
    INSERT INTO run_scored_units (run_id, fingerprint)
    SELECT ru.run_id, ru.fingerprint FROM run_units ru WHERE ru.fingerprint = new.unit_fp
      AND NOT EXISTS (SELECT 1 FROM run_scored_units s WHERE s.run_id = ru.run_id AND s.fingerprint = ru.fingerprint);
END;

CREATE TRIGGER run_scored_units_metric_change AFTER UPDATE OF unit_fp, episode_id ON metrics
BEGIN
    DELETE FROM run_scored_units
    WHERE (run_id, fingerprint) IN (SELECT run_id, fingerprint FROM run_units WHERE fingerprint = old.unit_fp)
      AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = old.unit_fp AND j.candidate_id IS NULL)
      AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = old.unit_fp AND m.episode_id IS NOT NULL);
    INSERT INTO run_scored_units (run_id, fingerprint)
    SELECT ru.run_id, ru.fingerprint FROM run_units ru WHERE ru.fingerprint = new.unit_fp AND new.episode_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM run_scored_units s WHERE s.run_id = ru.run_id AND s.fingerprint = ru.fingerprint);
END;

CREATE TRIGGER run_scored_units_metric_drop AFTER DELETE ON metrics
WHEN old.episode_id IS NOT NULL
BEGIN
    DELETE FROM run_scored_units
    WHERE (run_id, fingerprint) IN (SELECT run_id, fingerprint FROM run_units WHERE fingerprint = old.unit_fp)
      AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = old.unit_fp AND j.candidate_id IS NULL)
      AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = old.unit_fp AND m.episode_id IS NOT NULL);
END;
