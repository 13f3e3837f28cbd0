package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"unique"

	"mascot.dev/mascot/results/jsonl"
)

// Tx is the write transaction of one unit, handed to CommitUnit's callback.
// Rows whose UnitFP or RunID are empty get the unit's. Statements stay
// prepared in the connection's cache across rows and transactions.
type Tx struct {
	tx   *sql.Tx
	s    *Store
	ctx  context.Context
	unit Unit
	rows int   // result rows inserted (counters excluded)
	sums *sums // the group's counters, when the unit commits in a group
	// values says the unit may have written rows the report's score sums
	// read (judgments, metrics, or anything through SQL); a unit that
	// did not (candidates, episodes, pairs) needs no unit_scores row.
	values bool
	// raw says rows were written through SQL(): what the unit holds is
	// then read back rather than known from the inserts.
	raw bool
	// episodes are the inserted episodes' grouping columns, for the run's
	// report blocks (report_blocks.go).
	episodes []unitEpisode
}

// Rows returns how many result rows the unit has inserted so far
// (counters and latencies are not results).
func (t *Tx) Rows() int { return t.rows }

// Unit returns the unit being committed.
func (t *Tx) Unit() Unit { return t.unit }

// SQL returns the underlying transaction, for reads that must see the rows
// written so far.
func (t *Tx) SQL() *sql.Tx {
	t.values, t.raw = true, true // what is written through it is not known
	return t.tx
}

// insert inserts one result row and returns its id.
func (t *Tx) insert(query string, args ...any) (int64, error) {
	res, err := t.exec(query, args...)
	if err != nil {
		return 0, err
	}
	t.rows++
	return res.LastInsertId()
}

// exec runs a write of the transaction; the connection's statement cache
// (see dsn) keeps it prepared across transactions.
func (t *Tx) exec(query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *Tx) fp(v string) string {
	if v == "" {
		return t.unit.Fingerprint
	}
	return v
}

func (t *Tx) run(v string) any {
	if v == "" {
		v = t.unit.RunID
	}
	return nullString(v)
}

// nullID maps 0 to NULL.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// mustJSON marshals v, returning def for nil maps/slices.
func mustJSON(v any, def string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if string(b) == "null" {
		return def, nil
	}
	return string(b), nil
}

// nullRaw maps an empty raw JSON value to NULL.
func nullRaw(r json.RawMessage) any {
	if len(r) == 0 {
		return nil
	}
	return string(r)
}

const insertEpisodeSQL = `INSERT INTO episodes (unit_fp, run_id, idx, conv_id, id_field, id_raw, sample_idx,
	system, dataset, valence, domain, meeting, start_idx, mode, metadata_json, agents_spoken,
	initial_emotion, final_emotion, emotion_trajectory, user_big_five, extra_json, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertEpisode inserts an episode and its Turns, returning the episode id.
// The metadata's system and dataset default to the episode's and back.
func (t *Tx) InsertEpisode(e Episode) (int64, error) {
	args, err := t.appendEpisodeArgs(nil, &e, nil)
	if err != nil {
		return 0, err
	}
	id, err := t.insert(insertEpisodeSQL, args...)
	if err != nil {
		return 0, fmt.Errorf("inserting episode %s: %w", e.ConvID, err)
	}
	t.noteEpisode(id, &e)
	if len(e.Turns) > 0 {
		for i := range e.Turns {
			e.Turns[i].EpisodeID = id
		}
		if _, err := t.InsertTurns(e.Turns); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// appendEpisodeArgs fills e's defaults and appends the values of
// insertEpisodeSQL's columns to dst; enc (nil for none) remembers
// encodings that repeat from row to row.
func (t *Tx) appendEpisodeArgs(dst []any, e *Episode, enc *rowEncodings) ([]any, error) {
	meta := e.MetadataJSON
	if e.Metadata.System == "" || e.Metadata.Dataset == "" || e.Metadata.SchemaVersion == "" {
		meta = "" // a default below changes the block
	}
	if e.System == "" {
		e.System = e.Metadata.System
	}
	if e.Dataset == "" {
		e.Dataset = e.Metadata.Dataset
	}
	if e.Metadata.System == "" {
		e.Metadata.System = e.System
	}
	if e.Metadata.Dataset == "" {
		e.Metadata.Dataset = e.Dataset
	}
	if e.Metadata.SchemaVersion == "" {
		e.Metadata.SchemaVersion = jsonl.SchemaVersion
	}
	if meta == "" {
		var err error
		if meta, err = enc.metadata(e.Metadata); err != nil {
			return nil, fmt.Errorf("encoding metadata of %s: %w", e.ConvID, err)
		}
	}
	var spoken any
	if e.AgentsSpoken != nil {
		spoken = string(jsonl.AppendSpoken(nil, e.AgentsSpoken))
	}
	extra, err := extraJSON(e.Extra)
	if err != nil {
		return nil, fmt.Errorf("encoding extra fields of %s: %w", e.ConvID, err)
	}
	return append(dst, t.fp(e.UnitFP), t.run(e.RunID), int64(e.Idx), e.ConvID,
		orDefault(e.IDField, "conv_id"), nullRaw(e.IDRaw), int64(e.SampleIdx), e.System, e.Dataset, e.Valence, e.Domain,
		value(e.Meeting), value(e.StartIdx), e.Mode, meta, spoken, value(e.InitialEmotion), value(e.FinalEmotion),
		nullRaw(e.EmotionTrajectory), nullRaw(e.UserBigFive), extra, toMS(e.CreatedAt)), nil
}

// noteEpisode keeps what the unit's report blocks need of an inserted
// episode, in copies of its own: an imported record's strings are slices
// of its whole line, and keeping them kept every line of the file (an
// import of 100,000 engine-shaped records held 370 MB that way). The
// grouping values repeat (a few systems, modes, valences a run): interned
// by unique.Make, which keeps a copy of each.
func (t *Tx) noteEpisode(id int64, e *Episode) {
	if t.fp(e.UnitFP) == t.unit.Fingerprint {
		t.episodes = append(t.episodes, unitEpisode{id, int64(e.SampleIdx), intern(e.Mode), intern(e.System),
			intern(e.Valence), intern(e.Domain), strings.Clone(e.ConvID)})
	} else {
		t.raw = true // a row of another unit: read back what each holds
	}
}

// intern returns the canonical copy of s.
func intern(s string) string { return unique.Make(s).Value() }

const insertTurnSQL = `INSERT INTO turns (episode_id, turn_idx, round_id, turn_type, agent_name, response,
	directive_json, directive_output, extra_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertTurns inserts turns (each with its EpisodeID) and returns their ids.
func (t *Tx) InsertTurns(turns []Turn) ([]int64, error) {
	ids := make([]int64, len(turns))
	var args []any // reused: each Exec is done with it when it returns
	for i, tu := range turns {
		var err error
		if args, err = appendTurnArgs(args[:0], &tu, nil); err != nil {
			return nil, err
		}
		id, err := t.insert(insertTurnSQL, args...)
		if err != nil {
			return nil, fmt.Errorf("inserting turn %d of episode %d: %w", tu.TurnIdx, tu.EpisodeID, err)
		}
		ids[i] = id
	}
	return ids, nil
}

// appendTurnArgs appends the values of insertTurnSQL's columns to dst
// (enc as appendEpisodeArgs's).
func appendTurnArgs(dst []any, tu *Turn, enc *rowEncodings) ([]any, error) {
	var dir any
	if tu.Directive != nil {
		dir = enc.directive(*tu.Directive)
	}
	extra, err := extraJSON(tu.Extra)
	if err != nil {
		return nil, fmt.Errorf("encoding extra fields of turn %d: %w", tu.TurnIdx, err)
	}
	return append(dst, tu.EpisodeID, int64(tu.TurnIdx), value(tu.RoundID), tu.TurnType, tu.AgentName,
		tu.Response, dir, value(tu.DirectiveOutput), extra), nil
}

// value is what database/sql would make of a *string or *int (NULL or
// the value, as string or int64) without its reflection.
func value[T string | int](p *T) any {
	if p == nil {
		return nil
	}
	switch v := any(*p).(type) {
	case int:
		return int64(v)
	default:
		return v
	}
}

// extraJSON is mustJSON(extra, "{}") without reflection for the usual
// empty map.
func extraJSON(extra map[string]json.RawMessage) (string, error) {
	if len(extra) == 0 {
		return "{}", nil
	}
	if b, ok := jsonl.AppendRawObject(nil, extra); ok {
		return string(b), nil
	}
	return mustJSON(extra, "{}")
}

// decodeExtra reads a stored extra object (extraJSON's) into *dst.
func decodeExtra(s string, dst *map[string]json.RawMessage) error {
	if m, ok := jsonl.DecodeRawObject(s); ok {
		*dst = m
		return nil
	}
	return json.Unmarshal([]byte(s), dst)
}
