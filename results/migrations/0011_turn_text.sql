-- 0011: a full-text index of the turns' responses, so that searching a
-- run's conversations for words reads the index instead of every turn
-- (EpisodesPage's Text). An FTS4 table over the content of turns (FTS4 and
-- its unicode61 tokenizer are compiled into go-sqlite3 by default; FTS5
-- is not), kept by triggers in every writer's transaction. The delete and
-- update triggers run BEFORE the change: an external-content index reads
-- the old text from turns to remove its entries. The migration indexes
-- the turns already stored.
CREATE VIRTUAL TABLE turn_text USING fts4(content="turns", response, tokenize=unicode61);
INSERT INTO turn_text(turn_text) VALUES ('rebuild');

CREATE TRIGGER turn_text_add AFTER INSERT ON turns
BEGIN INSERT INTO turn_text(docid, response) VALUES (new.id, new.response); END;
CREATE TRIGGER turn_text_remove BEFORE DELETE ON turns
BEGIN DELETE FROM turn_text WHERE docid = old.id; END;
CREATE TRIGGER turn_text_change_before BEFORE UPDATE OF id, response ON turns
BEGIN DELETE FROM turn_text WHERE docid = old.id; END;
CREATE TRIGGER turn_text_change_after AFTER UPDATE OF id, response ON turns
BEGIN INSERT INTO turn_text(docid, response) VALUES (new.id, new.response); END;
