-- 0002: the report reads every judgment of a run's units; a covering index
-- on unit_fp lets it do so without visiting the table rows.
DROP INDEX judgments_by_unit;
CREATE INDEX judgments_by_unit_cover ON judgments(unit_fp, candidate_id, episode_id, turn_id, agent, criterion,
    score, scale_min, scale_max);
