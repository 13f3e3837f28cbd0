-- 0020: the full-text index of 0011 without FTS4's per-document sizes.
-- FTS4 keeps a turn_text_docsize row for every indexed turn, and the
-- totals in turn_text_stat, for matchinfo()'s lengths and for deferring
-- the doclists of very common words; the search (EpisodesPage's Text)
-- uses neither: it matches phrases of word prefixes, which FTS4 never
-- defers, and lists them by docid. matchinfo=fts3 keeps no sizes, so
-- indexing a turn writes one b-tree row fewer: about an eighth of the
-- index's build in an import (docs/benchmarks.md, "Results store at
-- 100,000 episodes"). The table is made anew (FTS4 options are fixed at
-- creation) and the turns already stored are indexed again; the
-- triggers of 0011 name the table and keep working.
DROP TABLE turn_text;
CREATE VIRTUAL TABLE turn_text USING fts4(content="turns", response, tokenize=unicode61, matchinfo=fts3);
INSERT INTO turn_text(turn_text) VALUES ('rebuild');
