package results

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// FieldDiff is one resolved-config field that differs between two runs:
// its dotted path and its value in each (nil where the run has none).
type FieldDiff struct {
	Path string          `json:"path"`
	A    json.RawMessage `json:"a,omitempty"`
	B    json.RawMessage `json:"b,omitempty"`
}

// StageDiff is one stage key of two runs: "invalidated" (another
// fingerprint: its results are not B's to reuse), "reused" (the same
// fingerprint), or present in one run only. Reason says why a stage is
// invalidated: its own config changed, or only something it reads.
type StageDiff struct {
	Key    string `json:"key"`
	Kind   string `json:"kind"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// RunDiff is `mascot results diff A B`.
type RunDiff struct {
	A      string      `json:"a"`
	B      string      `json:"b"`
	Fields []FieldDiff `json:"fields"`
	Stages []StageDiff `json:"stages"`
}

// DiffRuns compares the resolved configs of runs a and b field by field
// (objects and lists are walked; a leaf's value is compared as JSON), then
// their stages by fingerprint, in b's stage order.
func (s *Store) DiffRuns(ctx context.Context, a, b string) (*RunDiff, error) {
	ra, err := s.GetRun(ctx, a)
	if err != nil {
		return nil, err
	}
	rb, err := s.GetRun(ctx, b)
	if err != nil {
		return nil, err
	}
	d := &RunDiff{A: a, B: b}
	var va, vb any
	if err := json.Unmarshal(ra.ConfigJSON, &va); err != nil {
		return nil, fmt.Errorf("reading config of run %s: %w", a, err)
	}
	if err := json.Unmarshal(rb.ConfigJSON, &vb); err != nil {
		return nil, fmt.Errorf("reading config of run %s: %w", b, err)
	}
	diffValues("", va, vb, &d.Fields)
	sa, err := s.Stages(ctx, a)
	if err != nil {
		return nil, err
	}
	sb, err := s.Stages(ctx, b)
	if err != nil {
		return nil, err
	}
	byKey := map[string]Stage{}
	for _, st := range sa {
		byKey[st.Key] = st
	}
	changed := func(key string) bool {
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Path, "stages."+key+".") || f.Path == "stages."+key {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	for _, st := range sb {
		seen[st.Key] = true
		old, ok := byKey[st.Key]
		switch {
		case !ok:
			d.Stages = append(d.Stages, StageDiff{Key: st.Key, Kind: st.Kind, Status: "only in " + b})
		case old.Fingerprint == st.Fingerprint:
			d.Stages = append(d.Stages, StageDiff{Key: st.Key, Kind: st.Kind, Status: "reused"})
		case changed(st.Key):
			d.Stages = append(d.Stages, StageDiff{Key: st.Key, Kind: st.Kind, Status: "invalidated", Reason: "its config changed"})
		default:
			d.Stages = append(d.Stages, StageDiff{Key: st.Key, Kind: st.Kind, Status: "invalidated",
				Reason: "an input changed (an upstream stage, or a dataset, endpoint, judge or reward it reads)"})
		}
	}
	for _, st := range sa {
		if !seen[st.Key] {
			d.Stages = append(d.Stages, StageDiff{Key: st.Key, Kind: st.Kind, Status: "only in " + a})
		}
	}
	return d, nil
}

// diffValues appends the leaves where a and b differ under path.
func diffValues(path string, a, b any, out *[]FieldDiff) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range x {
				keys[k] = true
			}
			for k := range y {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			sort.Strings(sorted)
			for _, k := range sorted {
				va, okA := x[k]
				vb, okB := y[k]
				switch {
				case !okA:
					*out = append(*out, FieldDiff{Path: join(k), B: raw(vb)})
				case !okB:
					*out = append(*out, FieldDiff{Path: join(k), A: raw(va)})
				default:
					diffValues(join(k), va, vb, out)
				}
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok && len(x) == len(y) {
			for i := range x {
				diffValues(join(strconv.Itoa(i)), x[i], y[i], out)
			}
			return
		}
	}
	ra, rb := raw(a), raw(b)
	if !bytes.Equal(ra, rb) {
		*out = append(*out, FieldDiff{Path: path, A: ra, B: rb})
	}
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
