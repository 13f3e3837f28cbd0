-- 0004: reports and exports cover a run's evaluation episodes by default,
-- filtering and grouping on mode; the covering index of 0003 gains mode so
-- the report still groups episodes without visiting the episode rows.
DROP INDEX episodes_report_cover;
CREATE INDEX episodes_report_cover ON episodes(unit_fp, mode, system, valence, domain, conv_id, sample_idx);
