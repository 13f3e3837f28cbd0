package results

import (
	"cmp"
	"context"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// blockSet is a run's report blocks decoded: its units' entries in the
// order they were appended. A unit's values stay encoded in the body
// (accumulate reads them there): decoding them into a slice of their own
// took as much memory again as the bodies, and the page faults and
// collections that come with it. Units and episodes refer to the bodies
// by offsets, not slices, so that the collector has no pointer to follow
// in their hundreds of thousands.
type blockSet struct {
	bodies [][]byte
	units  []blockUnit
	eps    []blockEpisode
	tags   []string    // the run's tags; a value's tag indexes it
	kinds  [][4]string // the run's episode kinds: mode, system, valence, domain
}

// span is bytes [off, end) of body bodies[body].
type span struct{ body, off, end uint32 }

func (bs *blockSet) bytes(s span) []byte { return bs.bodies[s.body][s.off:s.end] }

type blockUnit struct {
	fp    span // hex-decoded when hexed
	vals  span // the unit's values, valueWidth bytes each
	hexed bool
}

// valueWidth is the size of one encoded value: episode id (8), tag (2),
// count (4), sum (8).
const valueWidth = 8 + 2 + 4 + 8

// name is unit i's fingerprint.
func (bs *blockSet) name(i int) string {
	u := &bs.units[i]
	if u.hexed {
		return hex.EncodeToString(bs.bytes(u.fp))
	}
	return string(bs.bytes(u.fp))
}

type blockEpisode struct {
	id, sample int64
	conv       span
	kind       uint16 // indexes blockSet.kinds
}

// kind returns the episode's mode, system, valence and domain.
func (bs *blockSet) kind(e *blockEpisode) *[4]string { return &bs.kinds[e.kind] }

// errBadBlock is a block that does not decode (a bug, or a damaged file):
// the report reads the per-unit rows instead.
var errBadBlock = errors.New("undecodable report block")

// readBlocks returns the run's report blocks, or ok false when it has none
// that are current (see migration 0017). Everything is read in one read
// transaction, so the state checked is that of the blocks read, on a raw
// driver connection: a body arrives as one []byte the driver allocated,
// which the decoded units and episodes keep views into, with no copy
// through database/sql.
func (s *Store) readBlocks(ctx context.Context, runID string) (bs *blockSet, ok bool, err error) {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("reading the report blocks of run %s: %w", runID, err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		bs, ok, err = readBlocksOn(ctx, dc, runID)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("reading the report blocks of run %s: %w", runID, err)
	}
	return bs, ok, nil
}

// readBlocksOn is readBlocks on a driver connection.
func readBlocksOn(ctx context.Context, dc any, runID string) (bs *blockSet, ok bool, err error) {
	ex, okE := dc.(driver.ExecerContext)
	qr, okQ := dc.(driver.QueryerContext)
	if !okE || !okQ {
		return nil, false, fmt.Errorf("driver connection %T cannot execute or query", dc)
	}
	// Read the pages through a memory map instead of a read call and a
	// copy per page (the connection is read-only; the setting stays with
	// it, as the scan's).
	if _, err := ex.ExecContext(ctx, `PRAGMA mmap_size = 1073741824`, nil); err != nil {
		return nil, false, err
	}
	if _, err := ex.ExecContext(ctx, `BEGIN`, nil); err != nil {
		return nil, false, err
	}
	defer func() {
		if _, rerr := ex.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`, nil); rerr != nil && err == nil {
			err = rerr
		}
	}()
	arg := []driver.NamedValue{{Ordinal: 1, Value: runID}}
	query := func(q string, fn func(vals []driver.Value) error) error {
		rows, err := qr.QueryContext(ctx, q, arg)
		if err != nil {
			return err
		}
		defer rows.Close()
		vals := make([]driver.Value, len(rows.Columns()))
		for {
			if err := rows.Next(vals); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			if err := fn(vals); err != nil {
				return err
			}
		}
	}
	var current bool
	var units, size int64
	var tags, kinds string
	err = query(`SELECT b.version = s.version, b.tags, b.kinds, (SELECT COALESCE(SUM(units), 0) FROM report_blocks WHERE run_id = ?1),
		(SELECT COALESCE(SUM(length(body)), 0) FROM report_blocks WHERE run_id = ?1)
		FROM report_block_state b JOIN report_stamps s ON s.run_id = b.run_id WHERE b.run_id = ?1`,
		func(v []driver.Value) error {
			c, _ := v[0].(int64)
			current = c == 1
			tags, _ = v[1].(string)
			kinds, _ = v[2].(string)
			units, _ = v[3].(int64)
			size, _ = v[4].(int64)
			return nil
		})
	if err != nil || !current {
		return nil, false, err
	}
	// Room for the blocks' units, and for their episodes (an episode
	// takes 30 bytes at least, with the values of a unit that scores it),
	// so that decoding seldom grows the slices.
	bs = &blockSet{units: make([]blockUnit, 0, units+blockTailMax), eps: make([]blockEpisode, 0, min(units, size/30)+1024),
		tags: splitJudges(tags)}
	for _, k := range splitJudges(kinds) {
		f := strings.SplitN(k, "\x1f", 4)
		if len(f) != 4 {
			return nil, false, nil // not this format: read the rows instead
		}
		bs.kinds = append(bs.kinds, [4]string{f[0], f[1], f[2], f[3]})
	}
	d := blockDecoder{set: bs}
	decode := func(v []driver.Value) error {
		body, _ := v[0].([]byte)
		return d.body(body)
	}
	for _, q := range []string{`SELECT body FROM report_blocks WHERE run_id = ?1 ORDER BY id`,
		`SELECT body FROM report_block_tail WHERE run_id = ?1 ORDER BY id`} {
		if err := query(q, decode); err != nil {
			if errors.Is(err, errBadBlock) {
				return nil, false, nil // another format, or damage: read the rows instead
			}
			return nil, false, err
		}
	}
	return bs, true, nil
}

// blockDecoder decodes bodies into a blockSet.
type blockDecoder struct {
	set *blockSet
	b   []byte
	err bool
}

// span locates p, a part of the body being decoded, the last of
// set.bodies (p's capacity runs to the body's end).
func (d *blockDecoder) span(p []byte) span {
	i := len(d.set.bodies) - 1
	off := uint32(cap(d.set.bodies[i]) - cap(p))
	return span{body: uint32(i), off: off, end: off + uint32(len(p))}
}

func (d *blockDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// fixed returns the next n bytes (nil when there are fewer).
func (d *blockDecoder) fixed(n int) []byte {
	if len(d.b) < n {
		d.err, d.b = true, nil
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

func (d *blockDecoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err, d.b = true, nil
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

// body decodes one block (or tail) body, entries with their lengths, and
// keeps it in set.bodies: the units and episodes decoded refer to it.
func (d *blockDecoder) body(b []byte) error {
	if uint64(len(b)) > math.MaxUint32 {
		return errBadBlock
	}
	d.set.bodies = append(d.set.bodies, b)
	d.b = b
	for len(d.b) > 0 && !d.err {
		entry := d.bytes()
		rest := d.b
		d.b = entry
		d.entry()
		if len(d.b) != 0 {
			d.err = true
		}
		d.b = rest
	}
	if d.err {
		return errBadBlock
	}
	return nil
}

// entry decodes one unit's entry from d.b.
func (d *blockDecoder) entry() {
	if f := d.fixed(1); f == nil || f[0] != entryFormat {
		d.err = true
		return
	}
	bs := d.set
	var u blockUnit
	switch k := d.fixed(1); {
	case k == nil:
		return
	case k[0] == 1:
		u.fp, u.hexed = d.span(d.fixed(32)), true
	default:
		u.fp = d.span(d.bytes())
	}
	for n := d.uvarint(); n > 0 && !d.err; n-- {
		f := d.fixed(18)
		if f == nil {
			return
		}
		k := binary.LittleEndian.Uint16(f[16:])
		if int(k) >= len(bs.kinds) {
			d.err = true
			return
		}
		bs.eps = append(bs.eps, blockEpisode{id: int64(binary.LittleEndian.Uint64(f)),
			sample: int64(binary.LittleEndian.Uint64(f[8:])), kind: k, conv: d.span(d.bytes())})
	}
	nvals := d.uvarint()
	if nvals > uint64(len(d.b)/valueWidth) {
		d.err = true
		return
	}
	vals := d.fixed(int(nvals) * valueWidth)
	u.vals = d.span(vals)
	for f := vals; len(f) >= valueWidth; f = f[valueWidth:] {
		if int(binary.LittleEndian.Uint16(f[8:])) >= len(bs.tags) {
			d.err = true
			return
		}
	}
	bs.units = append(bs.units, u)
}

// covers returns scope.Units as a set (nil for every unit) and those of
// them the blocks hold no entry of (a unit linked to the run holding
// nothing a report reads, or a unit of another run).
func (bs *blockSet) covers(scope Scope) (in map[string]bool, missing []string) {
	if scope.Units == nil {
		return nil, nil
	}
	have := make(map[string]bool, len(bs.units))
	for i := range bs.units {
		have[bs.name(i)] = true
	}
	in = make(map[string]bool, len(scope.Units))
	for _, fp := range scope.Units {
		if !have[fp] {
			missing = append(missing, fp)
		}
		in[fp] = true
	}
	return in, missing
}

// hasEvaluation reports whether the blocks hold an evaluation episode.
func (bs *blockSet) hasEvaluation() bool {
	out := outsideEvaluation()
	for i := range bs.eps {
		if !slices.Contains(out, bs.kind(&bs.eps[i])[0]) {
			return true
		}
	}
	return false
}

// scoreGroups is ScoreGroupsIn computed from the blocks: the groups the
// per-unit scan (episodeGroups, scanValues) gives, value for value. in is
// scope.Units as a set (nil: every unit).
func (bs *blockSet) scoreGroups(splitBy string, scope Scope, in map[string]bool) ([]ScoreGroup, error) {
	training := scope.IncludeTraining || scope.Units != nil || !bs.hasEvaluation()
	eg, err := bs.episodeGroups(splitBy, training)
	if err != nil {
		return nil, err
	}
	units := make([]int, 0, len(bs.units))
	for i := range bs.units {
		if in == nil || in[bs.name(i)] {
			units = append(units, i)
		}
	}
	cols, ok := bs.accumulate(units, eg)
	if !ok {
		// Two units add to one cell: add them in fingerprint order, as
		// the scan does, so the sums do not depend on the commit order.
		slices.SortFunc(units, func(a, b int) int { return cmp.Compare(bs.name(a), bs.name(b)) })
		cols, _ = bs.accumulate(units, eg)
	}
	return assembleGroups(eg, cols, scope.Units != nil), nil
}

// accumulate sums the units' values per (level, criterion, position), in
// the given unit order; ok is false when a cell gets values from two units
// (the sums then depend on the order).
func (bs *blockSet) accumulate(units []int, eg *epGroups) (*columns, bool) {
	cols := &columns{}
	for lv := range cols {
		cols[lv] = map[string]*column{}
	}
	byTag := make([]*column, len(bs.tags))
	ok := true
	for _, ui := range units {
		for f := bs.bytes(bs.units[ui].vals); len(f) >= valueWidth; f = f[valueWidth:] {
			p, in := eg.position(int64(binary.LittleEndian.Uint64(f)))
			if !in {
				continue // an episode outside the run, or outside the population
			}
			tag := binary.LittleEndian.Uint16(f[8:]) // below len(bs.tags): checked when decoded
			c := byTag[tag]
			if c == nil {
				var err error
				if c, err = cols.get(bs.tags[tag], eg.n); err != nil {
					continue // a tag of no level: the scan fails on it; unreachable from sums it wrote
				}
				byTag[tag] = c
			}
			if c.cnt[p] != 0 {
				ok = false
			}
			c.sum[p] += math.Float64frombits(binary.LittleEndian.Uint64(f[14:]))
			c.cnt[p] += int32(binary.LittleEndian.Uint32(f[10:]))
		}
	}
	return cols, ok
}

// splitOf is splitExpr's value for an episode.
func splitOf(splitBy string, kind *[4]string) string {
	valence, domain := kind[2], kind[3]
	switch splitBy {
	case "valence":
		return cmp.Or(valence, "unknown")
	case "domain":
		return cmp.Or(domain, "unknown")
	case "none":
		return "all"
	}
	return cmp.Or(valence, domain, "all")
}

// episodeGroups groups the blocks' episodes as the per-unit path does:
// evaluation episodes (and with training the others, in groups of their
// own) by population, system and split, ids ascending within a group.
func (bs *blockSet) episodeGroups(splitBy string, training bool) (*epGroups, error) {
	if _, err := splitExpr(splitBy); err != nil {
		return nil, err
	}
	out := outsideEvaluation()
	type gkey struct{ population, system, split string }
	byKey := map[gkey]int{}
	var groups []epGroup
	var members [][]int // episode indexes per group
	// An episode's group follows from its kind: found once per kind.
	const unseen, skipped = -1, -2
	byKind := make([]int, len(bs.kinds))
	for k := range byKind {
		byKind[k] = unseen
	}
	for i := range bs.eps {
		g := byKind[bs.eps[i].kind]
		if g == unseen {
			kind := bs.kind(&bs.eps[i])
			pop := ""
			if slices.Contains(out, kind[0]) {
				pop = kind[0]
			}
			k := gkey{pop, kind[1], splitOf(splitBy, kind)}
			var ok bool
			switch g, ok = byKey[k]; {
			case pop != "" && !training:
				g = skipped
			case !ok:
				g = len(groups)
				byKey[k] = g
				groups = append(groups, epGroup{system: k.system, split: k.split, population: k.population})
				members = append(members, nil)
			}
			byKind[bs.eps[i].kind] = g
		}
		if g == skipped {
			continue
		}
		members[g] = append(members[g], i)
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ga, gb := groups[a], groups[b]
		return cmp.Or(cmp.Compare(ga.population, gb.population), cmp.Compare(ga.system, gb.system),
			cmp.Compare(ga.split, gb.split))
	})
	eg := &epGroups{}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, gi := range order {
		g, m := groups[gi], members[gi]
		slices.SortFunc(m, func(a, b int) int { return cmp.Compare(bs.eps[a].id, bs.eps[b].id) })
		g.start = eg.n
		g.ids = make([]int64, len(m))
		g.keys = make([]string, len(m))
		for k, i := range m {
			e := &bs.eps[i]
			g.ids[k], g.keys[k] = e.id, PairKey(string(bs.bytes(e.conv)), int(e.sample))
			lo, hi = min(lo, e.id), max(hi, e.id)
			eg.n++
		}
		g.end = eg.n
		eg.groups = append(eg.groups, g)
	}
	// Positions by id: a slice when the ids are dense enough (as
	// densify's), else a map.
	dense := eg.n > 0 && hi-lo < int64(4*eg.n+1024)
	if dense {
		eg.minID, eg.dense = lo, make([]int32, hi-lo+1)
	} else {
		eg.pos = make(map[int64]int32, eg.n)
	}
	for _, g := range eg.groups {
		for k, id := range g.ids {
			if dense {
				eg.dense[id-lo] = int32(g.start+k) + 1
			} else {
				eg.pos[id] = int32(g.start + k)
			}
		}
	}
	return eg, nil
}
