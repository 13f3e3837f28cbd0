-- mascot: foreign keys off
-- 0019: find a unit's candidates by a number the unit gets in order of
-- creation, not by its fingerprint. UNIQUE (unit_fp, sample_idx) put a
-- unit's K entries at a random place (the fingerprint is a hash), on a
-- leaf no other unit of the commit touched, which split often in a store
-- that holds earlier runs: about 16 µs of CPU a request of a candidates
-- stage there (docs/benchmarks.md, round "2026-12-07 (sixth)"). Keyed by
-- the unit's number, every unit's entries go to the right edge of the
-- index, where the commit's other units write too.
--
-- units.no is explicit (not the rowid): VACUUM, and the VACUUM INTO of a
-- Slurm snapshot, may renumber the rowids of a table without an INTEGER
-- PRIMARY KEY. The trigger units_number gives every new unit, whoever
-- inserts it, one past the largest (a seek in units_by_no).
-- candidates keeps unit_fp (readers, the foreign key to units); unit_no
-- is the same unit's number, so a unit's candidates are found by
-- unit_no = (SELECT no FROM units WHERE fingerprint = ?).
--
-- SQLite cannot drop a table constraint in place, so candidates is
-- rebuilt: created anew, copied with its ids (judgments and pairs point
-- at them), the old one dropped and the new one renamed. The migration
-- runs with foreign keys off (the first line of this file says so):
-- with them on, dropping the old table would first delete its rows and
-- cascade to their judgments and pairs.
ALTER TABLE units ADD COLUMN no INTEGER;
UPDATE units SET no = rowid;
CREATE UNIQUE INDEX units_by_no ON units(no);
CREATE TRIGGER units_number AFTER INSERT ON units WHEN new.no IS NULL
BEGIN
    UPDATE units SET no = (SELECT COALESCE(MAX(no), 0) + 1 FROM units) WHERE rowid = new.rowid;
END;

CREATE TABLE candidates_new (
    id         INTEGER PRIMARY KEY,
    unit_fp    TEXT NOT NULL REFERENCES units(fingerprint),
    run_id     TEXT REFERENCES runs(id) ON DELETE SET NULL,
    kind       TEXT NOT NULL DEFAULT 'response',
    context_id TEXT NOT NULL DEFAULT '',
    persona    TEXT NOT NULL DEFAULT '',
    sample_idx INTEGER NOT NULL DEFAULT 0,
    prompt     TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL DEFAULT '',
    raw        TEXT NOT NULL DEFAULT '',
    model_id   TEXT NOT NULL DEFAULT '',
    meta_json  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta_json)),
    created_at INTEGER NOT NULL,
    prompt_id  INTEGER,
    unit_no    INTEGER NOT NULL,
    UNIQUE (unit_no, sample_idx)
);
INSERT INTO candidates_new (id, unit_fp, run_id, kind, context_id, persona, sample_idx, prompt, text, raw,
    model_id, meta_json, created_at, prompt_id, unit_no)
SELECT c.id, c.unit_fp, c.run_id, c.kind, c.context_id, c.persona, c.sample_idx, c.prompt, c.text, c.raw,
    c.model_id, c.meta_json, c.created_at, c.prompt_id, u.no
FROM candidates c LEFT JOIN units u ON u.fingerprint = c.unit_fp ORDER BY c.id;
DROP TABLE candidates;
ALTER TABLE candidates_new RENAME TO candidates;
CREATE INDEX candidates_by_context ON candidates(context_id, persona);
