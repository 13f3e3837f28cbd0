package runner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// topoOrder orders stages so every stage follows its dependencies; ties
// break by name so plans print stably.
func topoOrder(deps map[string][]string) ([]string, error) {
	indeg := map[string]int{}
	users := map[string][]string{}
	for k, ds := range deps {
		indeg[k] += 0
		for _, d := range ds {
			indeg[k]++
			users[d] = append(users[d], k)
		}
	}
	var ready, order []string
	for k, n := range indeg {
		if n == 0 {
			ready = append(ready, k)
		}
	}
	for len(ready) > 0 {
		sort.Strings(ready)
		k := ready[0]
		ready = ready[1:]
		order = append(order, k)
		for _, u := range users[k] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	if len(order) != len(deps) {
		return nil, fmt.Errorf("stage graph has a cycle")
	}
	return order, nil
}

// selectStages returns the stages a run executes for --only and --from.
// SelectionError is a --only or --from that names no stage of the
// experiment: bad input, not a failed run.
type SelectionError struct{ msg string }

func (e SelectionError) Error() string { return e.msg }

func selectStages(order []string, deps map[string][]string, only, from string) (map[string]bool, error) {
	want := map[string]bool{}
	has := func(k string) bool { _, ok := deps[k]; return ok }
	switch {
	case only != "" && from != "":
		return nil, SelectionError{"use --only or --from, not both"}
	case only != "":
		if !has(only) {
			return nil, SelectionError{fmt.Sprintf("--only %q: no such stage (stages: %s)", only, strings.Join(order, ", "))}
		}
		want[only] = true
	case from != "":
		if !has(from) {
			return nil, SelectionError{fmt.Sprintf("--from %q: no such stage (stages: %s)", from, strings.Join(order, ", "))}
		}
		want[from] = true
		for _, k := range order {
			for _, d := range deps[k] {
				if want[d] {
					want[k] = true
				}
			}
		}
	default:
		for _, k := range order {
			want[k] = true
		}
	}
	return want, nil
}

func rawString(raw json.RawMessage, field string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m[field], &s)
	return s
}

func sortedStrings(xs []string) []string {
	sort.Strings(xs)
	return xs
}
