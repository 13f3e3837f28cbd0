package results

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// A run's report blocks (migration 0017) hold one entry per unit linked to
// the run, appended in the transaction that links it. An entry is binary,
// little-endian: fixed-width integers (i64, i32, u16, f64), unsigned
// varints (u) and strings as u length and bytes (s):
//
//	1 byte: the format, entryFormat
//	the fingerprint: 1 byte 1 and its 32 bytes when it is 64 lowercase hex digits, else 0 and s
//	u episodes, each: i64 id, i64 sample_idx, u16 kind, s conv_id
//	u values, each: i64 episode id, u16 tag, i32 count, f64 sum
//
// A tag (a level byte and a criterion, as the score sums' tags) is an index
// into the run's tag list, and an episode's kind (its mode, system,
// valence and domain, which repeat across a run's episodes) an index into
// its kind list, both kept with its judges in report_block_state. A
// block's body, and a tail row's, is entries each preceded by its length
// (u). The values are the unit's score sums (unit_scores), so a report
// adds the same numbers the per-unit scan adds; they are fixed width, and
// the repeated strings kept once per run, because a report decodes a
// million of them at 100,000 episodes.

// entryFormat marks an entry's layout; a reader meeting another treats the
// blocks as behind (a report rebuilds them).
const entryFormat = 2

// blockTailMax is how many tail entries a run gathers before they are
// merged into one block.
const blockTailMax = 512

// startBlocks gives a new run an empty, current set of report blocks (and
// the report stamp they are checked against), in tx.
func startBlocks(ctx context.Context, tx *sql.Tx, runID string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO report_stamps (run_id, epoch)
		VALUES (?, lower(hex(randomblob(8)))) ON CONFLICT (run_id) DO NOTHING`, runID); err != nil {
		return fmt.Errorf("stamping run %s: %w", runID, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO report_block_state (run_id, version)
		SELECT run_id, version FROM report_stamps WHERE run_id = ?
		ON CONFLICT (run_id) DO UPDATE SET version = excluded.version, tail = 0, judges = '', tags = '', kinds = ''`,
		runID); err != nil {
		return fmt.Errorf("starting the report blocks of run %s: %w", runID, err)
	}
	return nil
}

// errUnencodable is a unit the blocks cannot hold (a column holding the
// lists' separators): its run's blocks are left behind, and its reports
// read the rows.
var errUnencodable = errors.New("a value holds U+001E or U+001F")

// runDict is a run's tag and kind lists and judges (report_block_state),
// which the entries appended to its blocks extend.
type runDict struct {
	tags, kinds     []string
	tagIdx, kindIdx map[string]int
	judges          []string
	changed         bool
}

func newRunDict(tags, kinds, judges string) *runDict {
	d := &runDict{tags: splitJudges(tags), kinds: splitJudges(kinds), tagIdx: map[string]int{}, kindIdx: map[string]int{},
		judges: splitJudges(judges)}
	for i, t := range d.tags {
		d.tagIdx[t] = i
	}
	for i, k := range d.kinds {
		d.kindIdx[k] = i
	}
	return d
}

// index returns s's index in list (adding it), at most 2¹⁶ of them.
func (d *runDict) index(list *[]string, idx map[string]int, s, what string) (int, error) {
	i, ok := idx[s]
	if ok {
		return i, nil
	}
	if len(*list) == math.MaxUint16+1 {
		return 0, fmt.Errorf("more than %d %s", math.MaxUint16+1, what)
	}
	i = len(*list)
	idx[s] = i
	*list = append(*list, s)
	d.changed = true
	return i, nil
}

// encode writes a unit's entry, its tags as the run's, adding the tags and
// judges the run did not have.
func (d *runDict) encode(u *unitData) ([]byte, error) {
	entry := []byte{entryFormat}
	if raw, err := hex.DecodeString(u.fp); err == nil && len(raw) == 32 && hex.EncodeToString(raw) == u.fp {
		entry = append(append(entry, 1), raw...)
	} else {
		entry = appendString(append(entry, 0), u.fp)
	}
	entry = binary.AppendUvarint(entry, uint64(len(u.eps)))
	for _, e := range u.eps {
		if strings.ContainsAny(e.mode+e.system+e.valence+e.domain, "\x1e\x1f") {
			return nil, errUnencodable // the kind list's separators
		}
		k, err := d.index(&d.kinds, d.kindIdx, e.kind(), "episode kinds")
		if err != nil {
			return nil, err
		}
		entry = binary.LittleEndian.AppendUint64(entry, uint64(e.id))
		entry = binary.LittleEndian.AppendUint64(entry, uint64(e.sample))
		entry = binary.LittleEndian.AppendUint16(entry, uint16(k))
		entry = appendString(entry, e.conv)
	}
	entry = binary.AppendUvarint(entry, uint64(len(u.vals)))
	for _, v := range u.vals {
		i, err := d.index(&d.tags, d.tagIdx, u.tags[v.tag], "criteria")
		if err != nil {
			return nil, err
		}
		entry = binary.LittleEndian.AppendUint64(entry, uint64(v.eid))
		entry = binary.LittleEndian.AppendUint16(entry, uint16(i))
		entry = binary.LittleEndian.AppendUint32(entry, uint32(v.n))
		entry = binary.LittleEndian.AppendUint64(entry, math.Float64bits(v.sum))
	}
	for _, j := range u.judges {
		if i, found := slices.BinarySearch(d.judges, j); !found && j != "" {
			d.judges = slices.Insert(d.judges, i, j)
			d.changed = true
		}
	}
	return entry, nil
}

// save writes the run's lists and judges back when an entry changed them.
func (d *runDict) save(ctx context.Context, tx *sql.Tx, runID string) error {
	if !d.changed {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE report_block_state SET tags = ?, kinds = ?, judges = ? WHERE run_id = ?`,
		strings.Join(d.tags, "\x1e"), strings.Join(d.kinds, "\x1e"), strings.Join(d.judges, "\x1e"), runID)
	if err != nil {
		return fmt.Errorf("updating the report blocks of run %s: %w", runID, err)
	}
	d.changed = false
	return nil
}

// currentBeforeLinks selects run ?1's block state when it was current
// before the link's ?2 new run_units rows, each of which bumped the run's
// stamp once: the one rule by which a link keeps the blocks current.
const currentBeforeLinks = `WHERE run_id = ?1 AND version + ?2 = (SELECT version FROM report_stamps WHERE run_id = ?1)`

// appendBlocks appends the entries of units just linked to runID (links:
// how many run_units rows the link inserted, each of which bumped the
// run's stamp once) to its report blocks, in the linking transaction. It
// does nothing when the blocks were not current before the link (a write
// they do not hold came first; they stay behind until rebuilt) or when the
// run has none; a unit whose values have no score sums leaves them behind.
// known, when set, is what the one unit of fps holds (a commit knows it
// from its inserts), which spares reading it back.
func appendBlocks(ctx context.Context, tx *sql.Tx, runID string, fps []string, links int64, known *unitData) error {
	if links == 0 {
		return nil
	}
	if known != nil && len(fps) == 1 {
		return appendKnown(ctx, tx, runID, known, links)
	}
	var tail int64
	var tags, kinds, judges string
	err := tx.QueryRowContext(ctx, `UPDATE report_block_state SET version = version + ?2 `+
		currentBeforeLinks+` RETURNING tail, tags, kinds, judges`, runID, links).Scan(&tail, &tags, &kinds, &judges)
	if err == sql.ErrNoRows {
		return nil // not current, or no blocks: nothing to keep up
	}
	if err != nil {
		return fmt.Errorf("updating the report blocks of run %s: %w", runID, err)
	}
	dict := newRunDict(tags, kinds, judges)
	var added int64
	for _, fp := range fps {
		u, ok, err := readUnit(ctx, tx, fp)
		if err != nil {
			return err
		}
		if !ok { // values without score sums: the blocks cannot hold them
			_, err := tx.ExecContext(ctx, `UPDATE report_block_state SET version = -1 WHERE run_id = ?`, runID)
			if err != nil {
				return fmt.Errorf("marking the report blocks of run %s behind: %w", runID, err)
			}
			return nil
		}
		if u.empty() {
			continue // nothing a report reads
		}
		if err := insertEntry(ctx, tx, runID, dict, &u); err != nil {
			return err
		}
		added++
	}
	if err := dict.save(ctx, tx, runID); err != nil || added == 0 {
		return err
	}
	tail += added
	if _, err := tx.ExecContext(ctx, `UPDATE report_block_state SET tail = ? WHERE run_id = ?`, tail, runID); err != nil {
		return fmt.Errorf("updating the report blocks of run %s: %w", runID, err)
	}
	if tail >= blockTailMax {
		return mergeTail(ctx, tx, runID)
	}
	return nil
}

// appendKnown is appendBlocks for one unit whose data the caller has: one
// statement when it holds nothing a report reads (most units), two when
// it does.
func appendKnown(ctx context.Context, tx *sql.Tx, runID string, u *unitData, links int64) error {
	if u.empty() {
		// Only the version moves. An Exec, not a query: database/sql starts
		// a goroutine for every query's rows inside a transaction, and a
		// unit with nothing a report reads (a candidates unit) would pay
		// one per commit for values it does not use.
		_, err := tx.ExecContext(ctx, `UPDATE report_block_state SET version = version + ?2 `+currentBeforeLinks, runID, links)
		if err != nil {
			return fmt.Errorf("updating the report blocks of run %s: %w", runID, err)
		}
		return nil
	}
	var tail int64
	var tags, kinds, judges string
	err := tx.QueryRowContext(ctx, `UPDATE report_block_state SET version = version + ?2, tail = tail + 1 `+
		currentBeforeLinks+` RETURNING tail, tags, kinds, judges`, runID, links).Scan(&tail, &tags, &kinds, &judges)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return fmt.Errorf("updating the report blocks of run %s: %w", runID, err)
	}
	dict := newRunDict(tags, kinds, judges)
	if err := insertEntry(ctx, tx, runID, dict, u); err != nil {
		return err
	}
	if err := dict.save(ctx, tx, runID); err != nil {
		return err
	}
	if tail >= blockTailMax {
		return mergeTail(ctx, tx, runID)
	}
	return nil
}

// insertEntry encodes a unit's entry for the run and appends it to the
// run's tail; a unit the blocks cannot hold leaves them behind instead.
func insertEntry(ctx context.Context, tx *sql.Tx, runID string, dict *runDict, u *unitData) error {
	entry, err := dict.encode(u)
	if errors.Is(err, errUnencodable) {
		_, err := tx.ExecContext(ctx, `UPDATE report_block_state SET version = -1 WHERE run_id = ?`, runID)
		if err != nil {
			return fmt.Errorf("marking the report blocks of run %s behind: %w", runID, err)
		}
		dict.changed = false
		return nil
	}
	if err != nil {
		return fmt.Errorf("appending unit %s to the report blocks of run %s: %w", u.fp, runID, err)
	}
	body := append(binary.AppendUvarint(make([]byte, 0, len(entry)+4), uint64(len(entry))), entry...)
	if _, err := tx.ExecContext(ctx, `INSERT INTO report_block_tail (run_id, body) VALUES (?, ?)`,
		runID, body); err != nil {
		return fmt.Errorf("appending to the report blocks of run %s: %w", runID, err)
	}
	return nil
}

// mergeTail moves a run's tail entries into one block.
func mergeTail(ctx context.Context, tx *sql.Tx, runID string) error {
	rows, err := tx.QueryContext(ctx, `SELECT body FROM report_block_tail WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return fmt.Errorf("merging the report blocks of run %s: %w", runID, err)
	}
	var body []byte
	n := 0
	for rows.Next() {
		var b sql.RawBytes
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return fmt.Errorf("merging the report blocks of run %s: %w", runID, err)
		}
		body = append(body, b...)
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("merging the report blocks of run %s: %w", runID, err)
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO report_blocks (run_id, units, body) VALUES (?, ?, ?)`, []any{runID, n, body}},
		{`DELETE FROM report_block_tail WHERE run_id = ?`, []any{runID}},
		{`UPDATE report_block_state SET tail = 0 WHERE run_id = ?`, []any{runID}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return fmt.Errorf("merging the report blocks of run %s: %w", runID, err)
		}
	}
	return nil
}

// unitData is what a unit holds for a report: its episodes (encoded as an
// entry holds them), its score sums with the unit's own tags, its judges.
type unitData struct {
	fp     string
	eps    []unitEpisode
	tags   []string
	vals   []unitValue
	judges []string
}

// unitEpisode is an episode's grouping columns.
type unitEpisode struct {
	id, sample                    int64
	mode, system, valence, domain string
	conv                          string
}

// kind is the episode's entry in the run's kind list: its mode, system,
// valence and domain joined by U+001F.
func (e *unitEpisode) kind() string {
	return e.mode + "\x1f" + e.system + "\x1f" + e.valence + "\x1f" + e.domain
}

type unitValue struct {
	eid int64
	tag int // index into unitData.tags
	n   int32
	sum float64
}

func (u *unitData) empty() bool { return len(u.eps) == 0 && len(u.vals) == 0 }

// readUnit reads a unit's report data from its rows. ok is false when the
// unit holds values (a judgment not of a candidate, a metric of an
// episode) but no score sums.
func readUnit(ctx context.Context, tx *sql.Tx, fp string) (u unitData, ok bool, err error) {
	u.fp = fp
	rows, err := tx.QueryContext(ctx, `SELECT id, sample_idx, mode, system, valence, domain, conv_id
		FROM episodes WHERE unit_fp = ? ORDER BY id`, fp)
	if err != nil {
		return u, false, fmt.Errorf("reading episodes of unit %s: %w", fp, err)
	}
	for rows.Next() {
		var id, sample int64
		var mode, system, valence, domain, conv string
		if err := rows.Scan(&id, &sample, &mode, &system, &valence, &domain, &conv); err != nil {
			rows.Close()
			return u, false, fmt.Errorf("reading episodes of unit %s: %w", fp, err)
		}
		u.eps = append(u.eps, unitEpisode{id, sample, mode, system, valence, domain, conv})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return u, false, fmt.Errorf("reading episodes of unit %s: %w", fp, err)
	}
	var packed, judges sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT packed, judges FROM unit_scores WHERE unit_fp = ?`, fp).Scan(&packed, &judges)
	switch {
	case err == sql.ErrNoRows:
		var values bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM judgments WHERE unit_fp = ?1 AND candidate_id IS NULL)
			OR EXISTS (SELECT 1 FROM metrics WHERE unit_fp = ?1 AND episode_id IS NOT NULL)`, fp).Scan(&values); err != nil {
			return u, false, fmt.Errorf("looking for values of unit %s: %w", fp, err)
		}
		return u, !values, nil
	case err != nil:
		return u, false, fmt.Errorf("reading score sums of unit %s: %w", fp, err)
	case !judges.Valid:
		return u, false, nil // judges not known (a row from before migration 0014)
	}
	var scores []unitScore
	err = eachValue(packed.String, func(eid int64, tag string, v float64, n int32) error {
		scores = append(scores, unitScore{episode: eid, tag: tag, sum: v, n: n})
		return nil
	})
	if err != nil {
		return u, false, fmt.Errorf("reading score sums of unit %s: %w", fp, err)
	}
	u.setScores(scores, judges.String)
	return u, true, nil
}

// setScores sets the unit's values and judges from its score sums.
func (u *unitData) setScores(scores []unitScore, judges string) {
	u.judges = splitJudges(judges)
	tagIdx := map[string]int{}
	for _, sc := range scores {
		i, ok := tagIdx[sc.tag]
		if !ok {
			i = len(u.tags)
			tagIdx[sc.tag] = i
			u.tags = append(u.tags, sc.tag)
		}
		u.vals = append(u.vals, unitValue{eid: sc.episode, tag: i, n: sc.n, sum: sc.sum})
	}
}

// splitJudges reads a list joined by U+001E ("" for none).
func splitJudges(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, "\x1e")
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// RebuildReportBlocks writes a run's report blocks afresh from its units'
// rows (computing the score sums a unit lacks), for a run whose blocks fell
// behind a write they do not hold, or a run older than them. Reports are
// right without it, only slower: ScoreGroupsIn calls it for a run that is
// not running.
func (s *Store) RebuildReportBlocks(ctx context.Context, runID string) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM report_blocks WHERE run_id = ?`, `DELETE FROM report_block_tail WHERE run_id = ?`} {
			if _, err := tx.ExecContext(ctx, q, runID); err != nil {
				return fmt.Errorf("rebuilding the report blocks of run %s: %w", runID, err)
			}
		}
		if err := startBlocks(ctx, tx, runID); err != nil {
			return err
		}
		units, err := readRunUnits(ctx, tx, runID)
		if err != nil {
			return fmt.Errorf("rebuilding the report blocks of run %s: %w", runID, err)
		}
		var body []byte
		dict := newRunDict("", "", "")
		n := 0
		flush := func() error {
			if n == 0 {
				return nil
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO report_blocks (run_id, units, body) VALUES (?, ?, ?)`, runID, n, body)
			body, n = body[:0], 0
			if err != nil {
				return fmt.Errorf("rebuilding the report blocks of run %s: %w", runID, err)
			}
			return nil
		}
		for i := range units {
			u := &units[i]
			if u.empty() {
				continue
			}
			entry, err := dict.encode(u)
			if err != nil {
				return fmt.Errorf("rebuilding the report blocks of run %s: %w", runID, err)
			}
			body = binary.AppendUvarint(body, uint64(len(entry)))
			body = append(body, entry...)
			if n++; n == blockTailMax {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		dict.changed = true
		return dict.save(ctx, tx, runID)
	})
}

// ReportBlocksCurrent reports whether the run's report blocks hold what its
// units hold (a fresh report then reads them instead of the units' rows).
func (s *Store) ReportBlocksCurrent(ctx context.Context, runID string) (bool, error) {
	var current bool
	err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM report_block_state b
		JOIN report_stamps s ON s.run_id = b.run_id WHERE b.run_id = ? AND b.version = s.version)`, runID).Scan(&current)
	if err != nil {
		return false, fmt.Errorf("checking the report blocks of run %s: %w", runID, err)
	}
	return current, nil
}

// readRunUnits reads what every unit linked to the run holds for a report,
// in fingerprint order, in three passes over the run (computing first the
// score sums a unit with values lacks) rather than queries per unit.
func readRunUnits(ctx context.Context, tx *sql.Tx, runID string) ([]unitData, error) {
	missing, err := runStrings(ctx, tx, `SELECT ru.fingerprint FROM run_units ru WHERE ru.run_id = ?1
		AND NOT EXISTS (SELECT 1 FROM unit_scores us WHERE us.unit_fp = ru.fingerprint)
		AND (EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = ru.fingerprint AND j.candidate_id IS NULL)
		  OR EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = ru.fingerprint AND m.episode_id IS NOT NULL))`, runID)
	if err != nil {
		return nil, err
	}
	for _, fp := range missing {
		if _, _, err := writeUnitScores(ctx, tx, fp); err != nil {
			return nil, err
		}
	}
	var units []unitData
	at := map[string]int{}
	rows, err := tx.QueryContext(ctx, `SELECT ru.fingerprint, COALESCE(us.packed, ''), COALESCE(us.judges, '')
		FROM run_units ru LEFT JOIN unit_scores us ON us.unit_fp = ru.fingerprint WHERE ru.run_id = ?
		ORDER BY ru.fingerprint`, runID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var fp, packed, judges string
		if err := rows.Scan(&fp, &packed, &judges); err != nil {
			rows.Close()
			return nil, err
		}
		var scores []unitScore
		err := eachValue(packed, func(eid int64, tag string, v float64, n int32) error {
			scores = append(scores, unitScore{episode: eid, tag: tag, sum: v, n: n})
			return nil
		})
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading score sums of unit %s: %w", fp, err)
		}
		u := unitData{fp: fp}
		u.setScores(scores, judges)
		at[fp] = len(units)
		units = append(units, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT e.unit_fp, e.id, e.sample_idx, e.mode, e.system, e.valence, e.domain, e.conv_id
		FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint WHERE ru.run_id = ? ORDER BY e.id`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var fp string
		var e unitEpisode
		if err := rows.Scan(&fp, &e.id, &e.sample, &e.mode, &e.system, &e.valence, &e.domain, &e.conv); err != nil {
			return nil, err
		}
		units[at[fp]].eps = append(units[at[fp]].eps, e)
	}
	return units, rows.Err()
}

// runStrings returns the one text column of a query whose ?1 is the run.
func runStrings(ctx context.Context, tx *sql.Tx, query, runID string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
