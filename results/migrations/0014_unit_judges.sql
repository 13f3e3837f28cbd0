-- 0014: which judges a unit's score sums come from. The report's
-- per-judge tables and inter-judge agreement (issue 22) need every
-- judgment row of a run, but only when at least two judges scored it; a
-- run of one judge (the common case) learns that from this column, one
-- short row per unit, instead of reading millions of rows to find a
-- single judge. judges lists the distinct judge values of the unit's
-- judgments (candidates aside) joined by U+001E, '' for none; NULL: not
-- known (the reader then reads the unit's rows).
ALTER TABLE unit_scores ADD COLUMN judges TEXT;
UPDATE unit_scores SET judges = (SELECT COALESCE(group_concat(judge, char(30)), '')
    FROM (SELECT DISTINCT j.judge FROM judgments j WHERE j.unit_fp = unit_scores.unit_fp AND j.candidate_id IS NULL));
