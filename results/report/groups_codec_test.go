package report

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"math"
	"reflect"
	"testing"

	"mascot.dev/mascot/results"
)

// TestStoredGroupsRoundTrip encodes a run's score groups (three levels
// sharing their episodes) and hand-made ones (NaN payloads, −0, ±Inf,
// empty and non-ASCII keys, an empty group) through gob, as the report
// cache does, and checks that every field comes back bit for bit, that
// groups with the same episodes are stored once (the blob is smaller than
// gob's encoding of the same groups), and that every truncation of the
// blob is an error, not a panic.
func TestStoredGroupsRoundTrip(t *testing.T) {
	s := openStore(t)
	addRun(t, s, "A", cacheFixture(30, 0))
	groups, err := s.ScoreGroups(context.Background(), "A", "auto")
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) < 6 {
		t.Fatalf("only %d groups", len(groups))
	}
	nan := math.Float64frombits(0x7ff8000000000bad)
	groups = append(groups,
		results.ScoreGroup{Level: "metric", System: "ünï", Split: "x", Population: results.ModeBranching,
			Criteria: []string{"a", "b"}, Episodes: []int64{-5, 3, 1 << 40}, Keys: []string{"", "c#1", "€#2"},
			Values: [][]float64{{nan, math.Copysign(0, -1), math.Inf(1)}, {math.Inf(-1), 1e-300, 62.5}}},
		results.ScoreGroup{Level: "agent", System: "empty"})
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(storedGroups(groups)); err != nil {
		t.Fatal(err)
	}
	var back storedGroups
	if err := gob.NewDecoder(bytes.NewReader(buf.Bytes())).Decode(&back); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(groups) {
		t.Fatalf("%d groups back, want %d", len(back), len(groups))
	}
	for i, w := range groups {
		g := back[i]
		gv, wv := g.Values, w.Values
		g.Values, w.Values = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("group %d = %+v, want %+v", i, g, w)
		}
		if len(gv) != len(wv) {
			t.Fatalf("group %d: %d value columns, want %d", i, len(gv), len(wv))
		}
		for c := range wv {
			for e := range wv[c] {
				if math.Float64bits(gv[c][e]) != math.Float64bits(wv[c][e]) {
					t.Fatalf("group %d value %d,%d = %x, want %x", i, c, e, math.Float64bits(gv[c][e]), math.Float64bits(wv[c][e]))
				}
			}
		}
	}
	var plain bytes.Buffer
	if err := gob.NewEncoder(&plain).Encode(groups); err != nil {
		t.Fatal(err)
	}
	if buf.Len() >= plain.Len() {
		t.Errorf("stored groups take %d bytes, gob's encoding %d", buf.Len(), plain.Len())
	}
	blob, err := storedGroups(groups).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(blob) {
		var g storedGroups
		if err := g.UnmarshalBinary(blob[:n]); !errors.Is(err, errBadGroups) {
			t.Fatalf("the first %d of %d bytes decoded with error %v", n, len(blob), err)
		}
	}
	var g storedGroups
	if err := g.UnmarshalBinary(append(blob, 0)); !errors.Is(err, errBadGroups) {
		t.Fatalf("a trailing byte decoded with error %v", err)
	}
}
