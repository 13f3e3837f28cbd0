-- 0017: what a run's report reads, kept per run at commit time. Computed
-- afresh, a report used to read one row per unit of the run (the unit's
-- score sums, its episodes) and the run's unit list: some 300,000 rows at
-- 100,000 episodes, each costing SQLite a B-tree lookup and the driver a
-- call. Now every unit linked to a run appends one binary entry (its
-- episodes' grouping columns, its score sums, its judges; see
-- report_blocks.go) to the run's tail here, in the transaction that links
-- it; 512 tail entries are then merged into one block. A fresh report
-- reads the run's few hundred blocks.
--
-- The blocks hold exactly what the units linked to the run hold while
-- report_block_state.version equals report_stamps.version (migration
-- 0010): the stamp's triggers count every write the report reads, and the
-- writer that appends a unit's entry adds the one count of its link. Any
-- other write (a judgment changed, a unit unlinked, an ingested shard)
-- leaves the two apart, and the report reads the per-unit rows as before
-- until the blocks are rebuilt. A run created before this migration has no
-- state row, the same.
CREATE TABLE report_blocks (
    id     INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    units  INTEGER NOT NULL,
    body   BLOB NOT NULL
);
CREATE INDEX report_blocks_by_run ON report_blocks(run_id, id);

CREATE TABLE report_block_tail (
    id     INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    body   BLOB NOT NULL
);
CREATE INDEX report_block_tail_by_run ON report_block_tail(run_id, id);

-- tags: the score tags the entries' values index, in order; kinds: the
-- episodes' (mode, system, valence, domain) the entries index, in order,
-- each joined by U+001F; judges: the distinct judges of the blocks' units
-- (unit_scores.judges), sorted (what RunJudges reads); each list joined by
-- U+001E.
CREATE TABLE report_block_state (
    run_id  TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    tail    INTEGER NOT NULL DEFAULT 0,
    tags    TEXT NOT NULL DEFAULT '',
    kinds   TEXT NOT NULL DEFAULT '',
    judges  TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
