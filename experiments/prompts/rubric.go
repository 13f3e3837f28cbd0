// Package prompts decodes the judge rubric of criteria.cue, the one
// definition of the paper's criteria: their ids, names, descriptions,
// anchors and order. The rubric judge builds its prompts and reads scores
// from it, and reports order their columns by it.
//
// Layer: data; depends only on cuelang.org/go.
package prompts

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
)

//go:embed criteria.cue
var criteriaCUE []byte

// Levels of criteria.
const (
	LevelAgent      = "agent"      // judged per agent response
	LevelCollective = "collective" // judged on a whole episode or block
)

// Criterion is one judged criterion with its anchors for scores 1..5.
type Criterion struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Level       string    `json:"level"`
	Anchors     [5]string `json:"anchors"`
}

// Rubric is criteria.cue decoded.
type Rubric struct {
	Version    string      `json:"rubric_version"`
	Agent      []Criterion `json:"agent_criteria"`
	Collective []Criterion `json:"collective_criteria"`
}

// All returns the per-agent then the collective criteria, in the paper's
// order.
func (r Rubric) All() []Criterion {
	return append(append([]Criterion(nil), r.Agent...), r.Collective...)
}

// IDs returns the criterion ids of All, in order.
func (r Rubric) IDs() []string {
	all := r.All()
	out := make([]string, len(all))
	for i, c := range all {
		out[i] = c.ID
	}
	return out
}

// Lookup returns the criterion with the given id.
func (r Rubric) Lookup(id string) (Criterion, bool) {
	for _, c := range r.All() {
		if c.ID == id {
			return c, true
		}
	}
	return Criterion{}, false
}

var paper = sync.OnceValues(func() (Rubric, error) { return Decode("criteria.cue", criteriaCUE) })

// Paper returns the embedded rubric (criteria.cue). The file is part of the
// binary and checked by this package's tests, so an error is a build
// defect: Paper panics on it.
func Paper() Rubric {
	r, err := paper()
	if err != nil {
		panic(err)
	}
	return r
}

// Decode compiles and decodes a rubric file; errors carry file:line:col.
func Decode(filename string, src []byte) (Rubric, error) {
	var r Rubric
	v := cuecontext.New().CompileBytes(src, cue.Filename(filename))
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return r, fmt.Errorf("decoding rubric: %s", strings.TrimSpace(cueerrors.Details(err, nil)))
	}
	if err := v.Decode(&r); err != nil {
		return r, fmt.Errorf("decoding rubric: %s", strings.TrimSpace(cueerrors.Details(err, nil)))
	}
	seen := map[string]bool{}
	for _, lv := range []struct {
		name string
		cs   []Criterion
	}{{LevelAgent, r.Agent}, {LevelCollective, r.Collective}} {
		if len(lv.cs) == 0 {
			return r, fmt.Errorf("decoding rubric %s: no %s criteria", filename, lv.name)
		}
		for i := range lv.cs {
			lv.cs[i].Level = lv.name
			if seen[lv.cs[i].ID] {
				return r, fmt.Errorf("decoding rubric %s: criterion id %q appears twice", filename, lv.cs[i].ID)
			}
			seen[lv.cs[i].ID] = true
		}
	}
	if r.Version == "" {
		return r, fmt.Errorf("decoding rubric %s: no rubric_version", filename)
	}
	return r, nil
}
