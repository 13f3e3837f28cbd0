package results

import (
	"database/sql/driver"
	"fmt"
	"strings"
)

// Bulk inserts the episodes of one large unit (Tx.BulkEpisodes).
//
// Rows go in by multi-row INSERTs of bulkEpisodes episodes and bulkTurns
// turns: a statement's fixed work (the driver's call, step, reset, the
// statement journal) is then shared by many rows. The ids are given,
// following the largest ones stored as SQLite's own choice would (it takes
// max(id)+1 for each row), so a turn's episode id is known before its
// episode is written; episodes are written before their turns, which the
// foreign key needs.
type Bulk struct {
	tx      *Tx
	n       int
	resume  func(fp string, n int) error
	index   func() error
	indexes func() error // nil: the indexes were kept

	nextEpisode, nextTurn int64
	episodes, turns       rowBatch
	enc                   rowEncodings
	named                 []driver.NamedValue // bulkExec's, reused
	sql                   map[int]string      // multi-row statements by table width and rows
}

// Rows per multi-row statement (23 and 10 parameters a row). database/sql
// turns a statement's arguments into a fresh slice of 40-byte values: at
// these sizes it stays under Go's large-object size (32 KiB), so it is
// recycled by the allocator instead of taking, zeroing and returning
// pages; larger batches saved no more per-statement work.
const (
	bulkEpisodes = 32
	bulkTurns    = 64
)

// rowBatch holds the values of rows waiting for their multi-row INSERT.
type rowBatch struct {
	args  []any
	first string // the first row's name, for errors
	rows  int
}

// BulkEpisodes starts a bulk insertion of episodes into the unit's
// transaction: the per-row tally and full-text triggers are suspended
// until Close, which does their work once. Insert episodes with
// Bulk.Insert, then call Close before the callback returns; a unit whose
// callback fails rolls everything back, the triggers included.
func (t *Tx) BulkEpisodes() (*Bulk, error) {
	b := &Bulk{tx: t}
	err := t.tx.QueryRowContext(t.ctx, `SELECT (SELECT COALESCE(MAX(id), 0) FROM episodes), (SELECT COALESCE(MAX(id), 0) FROM turns)`).
		Scan(&b.nextEpisode, &b.nextTurn)
	if err != nil {
		return nil, fmt.Errorf("reading the last episode and turn ids: %w", err)
	}
	if b.resume, err = suspendEpisodeTally(t.ctx, t.tx); err != nil {
		return nil, err
	}
	if b.index, err = suspendTurnIndex(t.ctx, t.tx); err != nil {
		return nil, err
	}
	if b.nextEpisode == 0 {
		// Into an empty table (a new database's import), the indexes are
		// built once by sorting at Close rather than row by row.
		if b.indexes, err = suspendIndexes(t.ctx, t.tx, "episodes"); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Insert inserts one episode with its turns (as Tx.InsertEpisode) and
// returns its id. The rows are written in batches: an error may come from
// a later Insert, or Close, naming the batch.
func (b *Bulk) Insert(e Episode) (int64, error) {
	t := b.tx
	id := b.nextEpisode + 1
	args, err := t.appendEpisodeArgs(append(b.episodes.args, id), &e, &b.enc)
	if err != nil {
		return 0, err
	}
	b.nextEpisode = id
	if b.episodes.rows == 0 {
		b.episodes.first = "episode " + e.ConvID
	}
	b.episodes.args = args
	b.episodes.rows++
	for i := range e.Turns {
		tu := &e.Turns[i]
		tu.EpisodeID = id
		args, err := appendTurnArgs(append(b.turns.args, b.nextTurn+1), tu, &b.enc)
		if err != nil {
			return 0, err
		}
		b.nextTurn++
		if b.turns.rows == 0 {
			b.turns.first = fmt.Sprintf("turn %d of episode %s", tu.TurnIdx, e.ConvID)
		}
		b.turns.args = args
		b.turns.rows++
	}
	t.rows += 1 + len(e.Turns)
	t.noteEpisode(id, &e)
	b.n++
	if b.episodes.rows == bulkEpisodes {
		if err := b.flush(); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// flush writes the waiting episodes, then the waiting turns in statements
// of bulkTurns rows (the last ones stay when they fill none).
func (b *Bulk) flush() error {
	if err := b.write(&b.episodes, "episodes", insertEpisodeSQL, b.episodes.rows); err != nil {
		return err
	}
	for b.turns.rows >= bulkTurns {
		if err := b.write(&b.turns, "turns", insertTurnSQL, bulkTurns); err != nil {
			return err
		}
	}
	return nil
}

// write inserts the first n rows of batch with one statement: the single
// row statement query turned into a multi-row one with the id first.
func (b *Bulk) write(batch *rowBatch, what, query string, n int) error {
	if n == 0 {
		return nil
	}
	width := len(batch.args) / batch.rows
	key := width<<20 | n
	q, ok := b.sql[key]
	if !ok {
		q = multiRowSQL(query, n)
		if b.sql == nil {
			b.sql = make(map[int]string)
		}
		b.sql[key] = q
	}
	if err := b.bulkExec(q, batch.args[:n*width]); err != nil {
		return fmt.Errorf("inserting %d %s from %s on: %w", n, what, batch.first, err)
	}
	rest := copy(batch.args, batch.args[n*width:])
	clear(batch.args[rest:])
	batch.args = batch.args[:rest]
	batch.rows -= n
	batch.first = "a later row"
	return nil
}

// multiRowSQL turns a one-row INSERT (its columns, then VALUES with one
// "?" each) into one of rows rows whose first column is id.
func multiRowSQL(query string, rows int) string {
	cols, _, _ := strings.Cut(query, "VALUES")
	head, list, _ := strings.Cut(strings.TrimSuffix(strings.TrimSpace(cols), ")"), "(")
	params := strings.Count(query, "?") + 1
	row := "(" + strings.Repeat("?, ", params-1) + "?)"
	var q strings.Builder
	q.Grow(len(head) + len(list) + rows*(len(row)+2) + 16)
	q.WriteString(head + "(id, " + list + ") VALUES ")
	for i := range rows {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(row)
	}
	return q.String()
}

// Close writes the waiting rows, indexes the inserted turns and counts the
// episodes in the tallies, restoring the triggers.
func (b *Bulk) Close() error {
	if err := b.flush(); err != nil {
		return err
	}
	if err := b.write(&b.turns, "turns", insertTurnSQL, b.turns.rows); err != nil {
		return err
	}
	if b.indexes != nil {
		if err := b.indexes(); err != nil {
			return err
		}
	}
	if err := b.index(); err != nil {
		return err
	}
	return b.resume(b.tx.unit.Fingerprint, b.n)
}
