package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"mascot.dev/mascot/results/jsonl"
)

// Canonical is a JSON value in canonical form (CanonicalJSON's output). A
// stage may put it in a unit's inputs where it would put a
// json.RawMessage: the unit's fingerprint is the same, and the bytes go
// into the inputs' canonical encoding as they are. A RawMessage is checked
// and re-encoded for every unit that holds it, two passes over a sample's
// whole dialogue context per unit, where a Canonical made once per sample
// serves all of the sample's units (docs/benchmarks.md).
type Canonical []byte

// MarshalJSON implements json.Marshaler: the canonical bytes, which are
// valid JSON.
func (c Canonical) MarshalJSON() ([]byte, error) { return c, nil }

// CanonicalJSON returns the canonical form of the JSON value b: the bytes
// json.Marshal writes for b decoded into any.
func CanonicalJSON(b []byte) (Canonical, error) {
	c, err := canonicalJSON(b)
	return Canonical(c), err
}

// appendCanonicalInputs appends to dst what hashInputs writes for inputs
// that hold a Canonical value at their top level; ok is false for any
// others, which take the general way (dst is returned as it was then, and
// on an error).
// The canonical form of an object is its members sorted by key, each key
// as json.Marshal writes it and each value in canonical form (what
// hashInputs writes for the whole map; TestCanonicalInputsAreHashInputs),
// so each value is made canonical alone and a Canonical one is copied.
// Keys that are not valid UTF-8 could meet once encoded (json.Marshal
// replaces their bad bytes) and are left to the general way.
func appendCanonicalInputs(dst []byte, m map[string]any) (b []byte, ok bool, err error) {
	size := 2
	for k, v := range m {
		if !utf8.ValidString(k) {
			return dst, false, nil
		}
		if c, isC := v.(Canonical); isC {
			ok = true
			size += len(c)
		}
		size += len(k) + 4
	}
	if !ok {
		return dst, false, nil
	}
	var inline [8]string
	keys := inline[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := slices.Grow(dst, size)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonl.AppendString(out, k) // json.Marshal's bytes for a string
		out = append(out, ':')
		if c, isC := m[k].(Canonical); isC {
			if len(c) == 0 {
				return dst, true, fmt.Errorf("input %q: an empty Canonical value", k)
			}
			out = append(out, c...)
			continue
		}
		vb, err := json.Marshal(m[k])
		if err != nil {
			return dst, true, err
		}
		if vb, err = canonicalJSON(vb); err != nil {
			return dst, true, err
		}
		out = append(out, vb...)
	}
	return append(out, '}'), true, nil
}
