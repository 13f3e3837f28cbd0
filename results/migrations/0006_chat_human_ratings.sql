-- 0006: human ratings across runs and per criterion. A cross-run rating
-- shows episodes of several runs for one context: runs_json holds the run
-- of each shown episode (aligned with systems_json and episodes_json, whose
-- systems are then "RUN:SYSTEM" labels); run_id stays NULL. criterion is
-- what the rater judged ('' = overall preference, as before).
ALTER TABLE human_preferences ADD COLUMN criterion TEXT NOT NULL DEFAULT '';
ALTER TABLE human_preferences ADD COLUMN runs_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(runs_json));
CREATE INDEX human_preferences_cross_run ON human_preferences(id) WHERE runs_json <> '[]';
