-- 0008: per-unit score sums for the report. For each committed unit,
-- unit_scores holds per (episode, tag) the sum and count of the values the
-- report's scan would read from the unit's judgments and metrics (tag: the
-- level byte and the criterion, as in the scan; turn judgments under their
-- episode), summed in the scan's order so the report's means are bit for
-- bit those of the raw rows. CommitUnit writes them in the unit's
-- transaction and marks the unit in scored_units; any later write to the
-- unit's judgments or metrics drops the mark, and the report then reads
-- that unit's raw rows. Units written before this migration have no mark
-- until Store.FillUnitScores computes them.
CREATE TABLE unit_scores (
    unit_fp    TEXT NOT NULL,
    episode_id INTEGER NOT NULL,
    tag        TEXT NOT NULL,
    sum        REAL NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (unit_fp, episode_id, tag)
) WITHOUT ROWID;

CREATE TABLE scored_units (
    unit_fp TEXT PRIMARY KEY
) WITHOUT ROWID;

CREATE TRIGGER scored_units_judgment_add AFTER INSERT ON judgments
BEGIN DELETE FROM scored_units WHERE unit_fp = new.unit_fp; END;
CREATE TRIGGER scored_units_judgment_change AFTER UPDATE ON judgments
BEGIN DELETE FROM scored_units WHERE unit_fp IN (old.unit_fp, new.unit_fp); END;
CREATE TRIGGER scored_units_judgment_drop AFTER DELETE ON judgments
BEGIN DELETE FROM scored_units WHERE unit_fp = old.unit_fp; END;
CREATE TRIGGER scored_units_metric_add AFTER INSERT ON metrics
BEGIN DELETE FROM scored_units WHERE unit_fp = new.unit_fp; END;
CREATE TRIGGER scored_units_metric_change AFTER UPDATE ON metrics
BEGIN DELETE FROM scored_units WHERE unit_fp IN (old.unit_fp, new.unit_fp); END;
CREATE TRIGGER scored_units_metric_drop AFTER DELETE ON metrics
BEGIN DELETE FROM scored_units WHERE unit_fp = old.unit_fp; END;
