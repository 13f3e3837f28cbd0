-- 0012: tags a user puts on runs (`mascot results tag`), to tell runs apart
-- and filter them (`results ls --tag`). A tag is a short label; a run has
-- any number, and loses them with the run.
CREATE TABLE run_tags (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    tag    TEXT NOT NULL,
    PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
CREATE INDEX run_tags_by_tag ON run_tags(tag, run_id);
