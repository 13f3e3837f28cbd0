package report

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"mascot.dev/mascot/results"
)

// storedGroups is how a run's score groups are kept in the report cache:
// a compact binary form (gob stores it as one byte string) instead of
// gob's field by field encoding. The groups of one system × split at each
// level usually hold the same episodes, so their ids and keys are written
// once and referred to after; ids are delta varints, keys one block of
// bytes, values their IEEE bits (NaN included, so bit for bit).
type storedGroups []results.ScoreGroup

const groupsCodecVersion = 1

var errBadGroups = errors.New("malformed stored score groups")

// MarshalBinary encodes the groups (encoding.BinaryMarshaler, which gob
// uses).
func (sg storedGroups) MarshalBinary() ([]byte, error) {
	b := []byte{groupsCodecVersion}
	b = binary.AppendUvarint(b, uint64(len(sg)))
	for i, g := range sg {
		for _, s := range []string{g.Level, g.System, g.Split, g.Population} {
			b = appendString(b, s)
		}
		b = binary.AppendUvarint(b, uint64(len(g.Criteria)))
		for _, c := range g.Criteria {
			b = appendString(b, c)
		}
		ref := slices.IndexFunc(sg[:i], func(o results.ScoreGroup) bool {
			return slices.Equal(o.Episodes, g.Episodes) && slices.Equal(o.Keys, g.Keys)
		})
		b = binary.AppendUvarint(b, uint64(ref+1)) // 0: the episodes follow
		n := len(g.Episodes)
		if ref < 0 {
			if len(g.Keys) != n {
				return nil, fmt.Errorf("encoding score groups: %d keys for %d episodes", len(g.Keys), n)
			}
			b = binary.AppendUvarint(b, uint64(n))
			prev := int64(0)
			for _, id := range g.Episodes {
				b, prev = binary.AppendVarint(b, id-prev), id
			}
			size := 0
			for _, k := range g.Keys {
				b, size = binary.AppendUvarint(b, uint64(len(k))), size+len(k)
			}
			b = slices.Grow(b, size)
			for _, k := range g.Keys {
				b = append(b, k...)
			}
		}
		if len(g.Values) != len(g.Criteria) {
			return nil, fmt.Errorf("encoding score groups: %d value columns for %d criteria", len(g.Values), len(g.Criteria))
		}
		for _, col := range g.Values {
			if len(col) != n {
				return nil, fmt.Errorf("encoding score groups: %d values for %d episodes", len(col), n)
			}
			b = slices.Grow(b, 8*n)
			for _, v := range col {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
			}
		}
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote; groups that shared
// their episodes share the decoded slices (capped, so an append copies).
func (sg *storedGroups) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	if d.byte() != groupsCodecVersion {
		return fmt.Errorf("%w: unknown version", errBadGroups)
	}
	out := make(storedGroups, d.count(1))
	for i := range out {
		g := &out[i]
		g.Level, g.System, g.Split, g.Population = d.string(), d.string(), d.string(), d.string()
		for range d.count(1) {
			g.Criteria = append(g.Criteria, d.string())
		}
		switch ref := d.uvarint(); {
		case ref > uint64(i):
			return fmt.Errorf("%w: group %d refers to group %d", errBadGroups, i, ref)
		case ref > 0:
			g.Episodes, g.Keys = out[ref-1].Episodes, out[ref-1].Keys
		default:
			n := d.count(2)
			if n == 0 {
				break
			}
			g.Episodes = make([]int64, n)
			prev := int64(0)
			for e := range g.Episodes {
				prev += d.varint()
				g.Episodes[e] = prev
			}
			lens := make([]int, n)
			size := 0
			for e := range lens {
				lens[e] = d.count(1)
				size += lens[e]
			}
			raw := d.bytes(size)
			if d.err != nil {
				return d.err
			}
			block := string(raw)
			g.Keys = make([]string, n)
			for e, l := range lens {
				g.Keys[e], block = block[:l], block[l:]
			}
		}
		n := len(g.Episodes)
		if len(g.Criteria) > 0 {
			g.Values = make([][]float64, len(g.Criteria))
		}
		for c := range g.Values {
			raw := d.bytes(8 * n)
			if d.err != nil {
				return d.err
			}
			col := make([]float64, n)
			for e := range col {
				col[e] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*e:]))
			}
			g.Values[c] = col
		}
		if d.err != nil {
			return d.err
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d bytes after the groups", errBadGroups, len(d.b))
	}
	if d.err != nil {
		return d.err
	}
	*sg = out
	return nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decoder reads the codec's fields; after the first error it returns
// zeros and keeps that error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated %s", errBadGroups, what)
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail("header")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail("number")
		return 0
	}
	d.b = d.b[k:]
	return v
}

func (d *decoder) varint() int64 {
	v, k := binary.Varint(d.b)
	if k <= 0 {
		d.fail("number")
		return 0
	}
	d.b = d.b[k:]
	return v
}

// count reads a length whose items take at least min bytes each, so a
// corrupt length cannot ask for more memory than the data could hold.
func (d *decoder) count(min int) int {
	v := d.uvarint()
	if v > uint64(len(d.b)/min) {
		d.fail("list")
		return 0
	}
	return int(v)
}

func (d *decoder) bytes(n int) []byte {
	if n > len(d.b) {
		d.fail("bytes")
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) string() string { return string(d.bytes(d.count(1))) }
