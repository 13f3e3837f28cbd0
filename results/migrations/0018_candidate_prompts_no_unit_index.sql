-- 0018: candidate_prompts_by_unit (migration 0016) put one entry per
-- candidates unit at a random place (the unit's fingerprint), so each
-- unit's commit dirtied a leaf page of its own there: one WAL frame, and
-- its checkpoint write, per unit (docs/benchmarks.md, "Round of
-- 2026-12-06"). No query needs it: readers reach a prompt by its id
-- (candidates.prompt_id), and removing a unit's prompts finds them the
-- same way (remove.go); only an ingested shard's own, small table is
-- read by unit_fp. Dropping an index rewrites nothing.
DROP INDEX IF EXISTS candidate_prompts_by_unit;
