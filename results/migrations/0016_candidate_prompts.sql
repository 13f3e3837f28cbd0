-- 0016: the K candidates of a unit answer one prompt (its context and
-- persona: 2.5 to 7 kB of text) that each of their rows repeated, so a
-- candidates stage wrote it K times per unit. InsertCandidates now writes
-- a prompt its rows share once, here, and the rows with prompt '' and
-- prompt_id pointing at it; readers take COALESCE(the prompt here, the
-- row's own). Rows written before, or alone, keep their prompt inline
-- (prompt_id NULL). No foreign key on prompt_id: a candidate is deleted
-- before its prompt, and a key would make every prompt's deletion scan
-- the candidates.
CREATE TABLE candidate_prompts (
    id      INTEGER PRIMARY KEY,
    unit_fp TEXT NOT NULL REFERENCES units(fingerprint),
    prompt  TEXT NOT NULL
);
CREATE INDEX candidate_prompts_by_unit ON candidate_prompts(unit_fp);
ALTER TABLE candidates ADD COLUMN prompt_id INTEGER;
