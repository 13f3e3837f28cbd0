-- 0003: the report groups a run's episodes by system and split, reading
-- conv_id and sample_idx for pairing; a covering index on unit_fp lets it
-- do so without visiting the (wide) episode rows.
CREATE INDEX episodes_report_cover ON episodes(unit_fp, system, valence, domain, conv_id, sample_idx);
