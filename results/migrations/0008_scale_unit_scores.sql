-- 0008: per-unit score sums for the report. For each committed unit,
-- unit_scores holds in one packed text the sum and count of the values the
-- report's scan would read from the unit's judgments and metrics, per
-- (episode, tag) (tag: the level byte and the criterion, as in the scan;
-- turn judgments under their episode): entries "episode␟tag␟sum␟n" joined
-- by ␞, sums in Go's shortest round-tripping text. They are summed in the
-- scan's order, so the report's means are bit for bit those of the raw
-- rows, and one row per unit spares SQLite a REAL-to-text conversion per
-- value. CommitUnit writes the row in the unit's transaction; any later
-- write to the unit's judgments or metrics deletes it, and the report then
-- reads that unit's raw rows. Units written before this migration have no
-- row until Store.FillUnitScores computes them.
CREATE TABLE unit_scores (
    unit_fp TEXT PRIMARY KEY,
    packed  TEXT NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER unit_scores_judgment_add AFTER INSERT ON judgments
BEGIN DELETE FROM unit_scores WHERE unit_fp = new.unit_fp; END;
CREATE TRIGGER unit_scores_judgment_change AFTER UPDATE ON judgments
BEGIN DELETE FROM unit_scores WHERE unit_fp IN (old.unit_fp, new.unit_fp); END;
CREATE TRIGGER unit_scores_judgment_drop AFTER DELETE ON judgments
BEGIN DELETE FROM unit_scores WHERE unit_fp = old.unit_fp; END;
CREATE TRIGGER unit_scores_metric_add AFTER INSERT ON metrics
BEGIN DELETE FROM unit_scores WHERE unit_fp = new.unit_fp; END;
CREATE TRIGGER unit_scores_metric_change AFTER UPDATE ON metrics
BEGIN DELETE FROM unit_scores WHERE unit_fp IN (old.unit_fp, new.unit_fp); END;
CREATE TRIGGER unit_scores_metric_drop AFTER DELETE ON metrics
BEGIN DELETE FROM unit_scores WHERE unit_fp = old.unit_fp; END;
