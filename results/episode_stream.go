package results

import (
	"cmp"
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"mascot.dev/mascot/results/jsonl"
)

// ForEachEpisode streams a run's episodes (all of them) with their turns,
// ordered by id, without loading the run into memory.
func (s *Store) ForEachEpisode(ctx context.Context, runID string, fn func(*Episode) error) error {
	return s.ForEachStagedEpisode(ctx, runID, true, func(e *Episode, _ string) error { return fn(e) })
}

// ForEachStagedEpisode streams the run's evaluation episodes, and its
// training-time ones when training is set, ordered by id, each with its
// turns and the run's stage key of the unit that generated it. Episodes of
// one metadata block share its Metadata.Extra map: fn must not change it.
//
// It reads on one raw driver connection: one row per episode, its turns
// packed in one value (packedTurnsSQL), converted here without
// database/sql's per-column reflection. The metadata and agent counts,
// which repeat across episodes, are decoded once per distinct text.
func (s *Store) ForEachStagedEpisode(ctx context.Context, runID string, training bool, fn func(*Episode, string) error) error {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return fmt.Errorf("reading episodes of run %s: %w", runID, err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error { return streamEpisodes(ctx, dc, runID, training, fn) })
	if err != nil {
		return fmt.Errorf("reading episodes of run %s: %w", runID, err)
	}
	return nil
}

func streamEpisodes(ctx context.Context, dc any, runID string, training bool, fn func(*Episode, string) error) error {
	ex, okE := dc.(driver.ExecerContext)
	qr, okQ := dc.(driver.QueryerContext)
	if !okE || !okQ {
		return fmt.Errorf("driver connection %T cannot execute or query", dc)
	}
	// Pages through a memory map, not a read and a copy each (the
	// connection is read-only; the setting stays with it).
	if _, err := ex.ExecContext(ctx, `PRAGMA mmap_size = 1073741824`, nil); err != nil {
		return err
	}
	only := ``
	if !training {
		only = ` AND ` + evaluationSQL("e")
	}
	inRunArg := strings.ReplaceAll(inRun("e"), "?", "?1")
	args := []driver.NamedValue{{Ordinal: 1, Value: runID}}
	rows, err := qr.QueryContext(ctx, `SELECT `+episodeColumns+`, COALESCE((SELECT ru.stage_key FROM run_units ru
		WHERE ru.run_id = ?1 AND ru.fingerprint = e.unit_fp), ''), `+packedTurnsSQL+`
		FROM episodes e WHERE `+inRunArg+only+` ORDER BY e.id`, args)
	if err != nil {
		return err
	}
	defer rows.Close()
	dec := newRowDecoder()
	v := make([]driver.Value, len(rows.Columns()))
	n := len(v) - 2 // the episode's columns; then its stage and its turns
	for {
		if err := rows.Next(v); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		e, err := dec.episode(v[:n])
		if err != nil {
			return err
		}
		stage, _ := v[n].(string)
		packed, _ := text(v[n+1])
		if e.Turns, err = dec.packedTurns(e.ID, packed); err != nil {
			return err
		}
		if err := fn(e, stage); err != nil {
			return err
		}
	}
}

// packedTurnsSQL packs the turns of episode e in one text, in turn order,
// so that a stream reads one value per episode instead of a row of ten
// per turn (each column a call into the driver). A turn is its id, turn
// index and round (empty for NULL) each followed by a comma, then its
// type, agent, response, directive JSON, raw Director output and extra
// JSON, each as its byte length, a colon and its bytes (length −1: NULL).
// Lengths make it unambiguous whatever the texts hold; one format() per
// turn builds it in one piece (a chain of || copies it at every step).
// The turns come in the order of the (episode_id, turn_idx) index SQLite
// reads them through; packedTurns sorts them should they not (an ORDER BY
// in the aggregate costs a sorter per episode).
const packedTurnsSQL = `(SELECT group_concat(format('%d,%d,%s,%d:%s%d:%s%d:%s%d:%s%d:%s%d:%s',
		t.id, t.turn_idx, COALESCE(t.round_id, ''),
		octet_length(t.turn_type), t.turn_type, octet_length(t.agent_name), t.agent_name,
		octet_length(t.response), t.response, COALESCE(octet_length(t.directive_json), -1), t.directive_json,
		COALESCE(octet_length(t.directive_output), -1), t.directive_output,
		octet_length(t.extra_json), t.extra_json), '')
	FROM turns t WHERE t.episode_id = e.id)`

// packedTurns decodes packedTurnsSQL's text of episode id.
func (d *rowDecoder) packedTurns(id int64, p string) ([]Turn, error) {
	var out []Turn
	bad := func() ([]Turn, error) { return nil, fmt.Errorf("decoding the turns of episode %d", id) }
	num := func() (int64, bool, bool) { // value, present, ok
		i := strings.IndexByte(p, ',')
		if i < 0 {
			return 0, false, false
		}
		f := p[:i]
		p = p[i+1:]
		if f == "" {
			return 0, false, true
		}
		n, err := strconv.ParseInt(f, 10, 64)
		return n, true, err == nil
	}
	str := func() (string, bool, bool) { // value, present, ok
		i := strings.IndexByte(p, ':')
		if i < 0 {
			return "", false, false
		}
		n, err := strconv.Atoi(p[:i])
		if n == -1 && err == nil {
			p = p[i+1:]
			return "", false, true
		}
		if err != nil || n < 0 || i+1+n > len(p) {
			return "", false, false
		}
		f := p[i+1 : i+1+n]
		p = p[i+1+n:]
		return f, true, true
	}
	for p != "" {
		t := Turn{EpisodeID: id}
		tid, _, ok1 := num()
		idx, _, ok2 := num()
		round, hasRound, ok3 := num()
		if !ok1 || !ok2 || !ok3 {
			return bad()
		}
		t.ID, t.TurnIdx = tid, int(idx)
		if hasRound {
			r := int(round)
			t.RoundID = &r
		}
		var vals [6]string
		var has [6]bool
		for k := range vals {
			var ok bool
			if vals[k], has[k], ok = str(); !ok {
				return bad()
			}
		}
		t.TurnType, t.AgentName, t.Response = vals[0], vals[1], vals[2]
		if has[3] {
			t.Directive = &Directive{}
			if !parseDirective(vals[3], t.Directive) {
				if err := json.Unmarshal([]byte(vals[3]), t.Directive); err != nil {
					return nil, fmt.Errorf("decoding a directive of episode %d: %w", id, err)
				}
			}
		}
		if has[4] {
			out := vals[4]
			t.DirectiveOutput = &out
		}
		if vals[5] != "{}" {
			if err := decodeExtra(vals[5], &t.Extra); err != nil {
				return nil, fmt.Errorf("decoding extra fields of a turn of episode %d: %w", id, err)
			}
		}
		out = append(out, t)
	}
	if !slices.IsSortedFunc(out, byTurnIdx) {
		slices.SortStableFunc(out, byTurnIdx)
	}
	return out, nil
}

func byTurnIdx(a, b Turn) int { return cmp.Compare(a.TurnIdx, b.TurnIdx) }

// rowDecoder turns driver values of episodeColumns and packed turns into
// rows, decoding each distinct metadata block and agent count once while
// it remembers them: at most maxDecoded of each, forgotten all at once
// when full, since blocks that differ from episode to episode (a tree
// node's link, the user's situation) would otherwise keep the whole run's
// in memory.
type rowDecoder struct {
	meta   map[string]Metadata
	spoken map[string]map[string]int
}

// maxDecoded bounds what a rowDecoder remembers: a run over ESConv's
// 1,300 dialogues with four systems has 5,200 distinct blocks at most.
const maxDecoded = 8192

func newRowDecoder() *rowDecoder {
	return &rowDecoder{meta: map[string]Metadata{}, spoken: map[string]map[string]int{}}
}

// metadata decodes a metadata block, or returns the one it remembers.
func (d *rowDecoder) metadata(raw string) (Metadata, error) {
	if m, ok := d.meta[raw]; ok {
		return m, nil
	}
	m, err := jsonl.DecodeMetadata(json.RawMessage(raw))
	if err != nil {
		return m, err
	}
	if len(d.meta) == maxDecoded {
		clear(d.meta)
	}
	d.meta[raw] = m
	return m, nil
}

// text is a TEXT value (or a BLOB read as text); ok false for NULL.
func text(v driver.Value) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

func textPtr(v driver.Value) *string {
	s, ok := text(v)
	if !ok {
		return nil
	}
	return &s
}

func integer(v driver.Value) int64 {
	n, _ := v.(int64)
	return n
}

// episode decodes the values of episodeColumns.
func (d *rowDecoder) episode(v []driver.Value) (*Episode, error) {
	e := &Episode{ID: integer(v[0]), Idx: int(integer(v[3])), SampleIdx: int(integer(v[7])), CreatedAt: fromMS(integer(v[22]))}
	e.UnitFP, _ = text(v[1])
	e.RunID, _ = text(v[2])
	e.ConvID, _ = text(v[4])
	e.IDField, _ = text(v[5])
	if raw, ok := text(v[6]); ok {
		e.IDRaw = json.RawMessage(raw)
	}
	e.System, _ = text(v[8])
	e.Dataset, _ = text(v[9])
	e.Valence, _ = text(v[10])
	e.Domain, _ = text(v[11])
	e.Meeting = textPtr(v[12])
	if v[13] != nil {
		n := int(integer(v[13]))
		e.StartIdx = &n
	}
	e.Mode, _ = text(v[14])
	meta, _ := text(v[15])
	m, err := d.metadata(meta)
	if err != nil {
		return nil, err
	}
	e.Metadata = m
	if spoken, ok := text(v[16]); ok {
		counts, ok := d.spoken[spoken]
		if !ok {
			if err := json.Unmarshal([]byte(spoken), &counts); err != nil {
				return nil, fmt.Errorf("decoding agents_spoken: %w", err)
			}
			if len(d.spoken) == maxDecoded {
				clear(d.spoken)
			}
			d.spoken[spoken] = counts
		}
		e.AgentsSpoken = maps.Clone(counts)
	}
	e.InitialEmotion, e.FinalEmotion = textPtr(v[17]), textPtr(v[18])
	if traj, ok := text(v[19]); ok {
		e.EmotionTrajectory = json.RawMessage(traj)
	}
	if big5, ok := text(v[20]); ok {
		e.UserBigFive = json.RawMessage(big5)
	}
	if extra, _ := text(v[21]); extra != "{}" {
		if err := decodeExtra(extra, &e.Extra); err != nil {
			return nil, fmt.Errorf("decoding extra fields: %w", err)
		}
	}
	return e, nil
}

// parseDirective reads a directive in the form the store writes it
// (json.Marshal of a Directive) whose strings hold no escape:
// {"agent_name":"…","action":"…","tone":"…"}. Any other text is left to
// encoding/json (ok false); what it accepts, encoding/json reads the same.
func parseDirective(s string, d *Directive) bool {
	fields := [3]*string{&d.AgentName, &d.Action, &d.Tone}
	for i, key := range [3]string{`{"agent_name":"`, `,"action":"`, `,"tone":"`} {
		var ok bool
		if s, ok = strings.CutPrefix(s, key); !ok {
			return false
		}
		end := strings.IndexByte(s, '"')
		if end < 0 || strings.IndexByte(s[:end], '\\') >= 0 || !plainString(s[:end]) {
			return false
		}
		*fields[i], s = s[:end], s[end+1:]
	}
	return s == "}"
}

// plainString reports whether s is printable ASCII, which a JSON string
// holds as it is (the decoder returns it unchanged).
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// OutsideEvaluation counts the run's episodes outside the evaluation
// population (training-time and chat ones: what an export leaves out
// unless asked).
func (s *Store) OutsideEvaluation(ctx context.Context, runID string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes e WHERE `+inRun("e")+` AND NOT (`+
		evaluationSQL("e")+`)`, runID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting training episodes of run %s: %w", runID, err)
	}
	return n, nil
}

// UnitEpisodes counts the episodes a unit holds.
func (s *Store) UnitEpisodes(ctx context.Context, fp string) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes WHERE unit_fp = ?`, fp).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting episodes of unit %s: %w", fp, err)
	}
	return n, nil
}
