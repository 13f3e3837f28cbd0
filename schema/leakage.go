package schema

import (
	"encoding/json"
	"fmt"
	"slices"

	"cuelang.org/go/cue"
)

// datasetChecks refuses exclude lists that name unknown datasets or form a
// cycle, and evaluation datasets that draw from the same data (name, path,
// hub id and split) as a dataset training stages read without excluding
// it: their samples would overlap.
func datasetChecks(e *Experiment, at func(cue.Path) []string) Errors {
	var errs Errors
	for _, name := range keys(e.Datasets) {
		for i, x := range e.Datasets[name].Exclude {
			if _, ok := e.Datasets[x]; ok && x != name {
				continue
			}
			errs = append(errs, Error{Path: fmt.Sprintf("datasets.%s.exclude.%d", name, i),
				Msg:       fmt.Sprintf("exclude names no other dataset: %q", x),
				Positions: at(cue.MakePath(cue.Str("datasets"), cue.Str(name), cue.Str("exclude"), cue.Index(i)))})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	train, eval := DatasetUse(e)
	for _, ev := range keys(eval) {
		for _, tr := range keys(train) {
			if ev == tr {
				errs = append(errs, Error{Path: "datasets." + ev,
					Msg:       fmt.Sprintf("dataset %q is read by training stage %s and evaluation stage %s", ev, train[tr], eval[ev]),
					Positions: at(cue.MakePath(cue.Str("datasets"), cue.Str(ev), cue.Str("name")))})
				continue
			}
			a, b := e.Datasets[ev], e.Datasets[tr]
			if !sameSource(a, b) || excludes(e, ev, tr) {
				continue
			}
			errs = append(errs, Error{Path: "datasets." + ev,
				Msg: fmt.Sprintf("evaluation dataset %q (stage %s) draws from the same %s data and split %q as training dataset %q (stage %s): "+
					"use another split, or set exclude: [%q] so no training sample is evaluated", ev, eval[ev], a.Name, a.Split, tr, train[tr], tr),
				Positions: at(cue.MakePath(cue.Str("datasets"), cue.Str(ev), cue.Str("name")))})
		}
	}
	return errs
}

// DatasetUse maps the datasets read by training-side and evaluation stages
// to the first stage (by name) reading them.
func DatasetUse(e *Experiment) (train, eval map[string]string) {
	train, eval = map[string]string{}, map[string]string{}
	for _, key := range keys(e.Stages) {
		st := e.Stages[key]
		k, _ := e.Kinds.Lookup(st.Kind)
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(st.Raw, &fields)
		use := train
		if k.Evaluates != nil && k.Evaluates(fields) {
			use = eval
		}
		for _, ref := range e.Kinds.StageRefs(st.Kind) {
			if ref.Target != "datasets" {
				continue
			}
			for _, n := range refNames(fields[ref.Field], ref.List) {
				if _, seen := use[n]; !seen {
					use[n] = key
				}
			}
		}
	}
	return train, eval
}

// sameSource reports whether two datasets read the same data: same format,
// file or hub id, and split.
func sameSource(a, b Dataset) bool {
	return a.Name == b.Name && a.Path == b.Path && a.HFID == b.HFID && a.Split == b.Split
}

// Excludes reports whether dataset a excludes b, directly or through the
// datasets it excludes.
func Excludes(e *Experiment, a, b string) bool { return excludes(e, a, b) }

// excludes reports whether dataset a excludes b, directly or through the
// datasets it excludes.
func excludes(e *Experiment, a, b string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(n string) bool {
		if seen[n] {
			return false
		}
		seen[n] = true
		xs := e.Datasets[n].Exclude
		return slices.Contains(xs, b) || slices.ContainsFunc(xs, walk)
	}
	return walk(a)
}
