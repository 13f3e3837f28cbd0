package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue"
)

// check runs the cross-reference rules CUE cannot state on its own: names
// that must exist, unique agent names, one base model, no stage cycles.
// Every violation is reported with the position of the offending field.
func check(e *Experiment, v cue.Value, rw posRewriter) Errors {
	var errs Errors
	at := func(path cue.Path) []string {
		if p := rw.pos(v.LookupPath(path).Pos()); p != "" {
			return []string{p}
		}
		return nil
	}
	exists := map[string]func(string) bool{
		"stages":    func(n string) bool { _, ok := e.Stages[n]; return ok },
		"datasets":  func(n string) bool { _, ok := e.Datasets[n]; return ok },
		"rosters":   func(n string) bool { _, ok := e.Rosters[n]; return ok },
		"endpoints": func(n string) bool { _, ok := e.Endpoints[n]; return ok },
		"judges":    func(n string) bool { _, ok := e.Judges[n]; return ok },
		"metrics":   func(n string) bool { _, ok := e.Metrics[n]; return ok },
		"rewards":   func(n string) bool { _, ok := e.Rewards[n]; return ok },
	}
	known := func(target string) string {
		var names []string
		switch target {
		case "stages":
			names = keys(e.Stages)
		case "datasets":
			names = keys(e.Datasets)
		case "rosters":
			names = keys(e.Rosters)
		case "endpoints":
			names = keys(e.Endpoints)
		case "judges":
			names = keys(e.Judges)
		case "metrics":
			names = keys(e.Metrics)
		case "rewards":
			names = keys(e.Rewards)
		}
		if len(names) == 0 {
			return "none are defined"
		}
		return "known: " + strings.Join(names, ", ")
	}
	for _, key := range keys(e.Stages) {
		st := e.Stages[key]
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(st.Raw, &fields)
		for _, ref := range e.Kinds.StageRefs(st.Kind) {
			for i, name := range refNames(fields[ref.Field], ref.List) {
				var msg string
				switch {
				case ref.Target == "stages" && name == key:
					msg = fmt.Sprintf("stage %q names itself", name)
				case !exists[ref.Target](name):
					msg = fmt.Sprintf("unknown %s %q (%s)", singular(ref.Target), name, known(ref.Target))
				case ref.Target == "stages" && len(ref.Reads) > 0 && !slices.Contains(ref.Reads, e.Stages[name].Kind):
					msg = fmt.Sprintf("stage %q has kind %s, but %s.%s must name a stage of kind %s",
						name, e.Stages[name].Kind, st.Kind, ref.Field, orList(ref.Reads))
				default:
					continue
				}
				path := cue.MakePath(cue.Str("stages"), cue.Str(key), cue.Str(ref.Field))
				shown := "stages." + key + "." + ref.Field
				if ref.List {
					path = cue.MakePath(cue.Str("stages"), cue.Str(key), cue.Str(ref.Field), cue.Index(i))
					shown = fmt.Sprintf("%s.%d", shown, i)
				}
				errs = append(errs, Error{Path: shown, Msg: msg, Positions: at(path)})
			}
		}
		_, hasModel := fields["base_model"]
		_, hasStage := fields["base_stage"]
		if k, _ := e.Kinds.Lookup(st.Kind); k.Device && !k.Model && !hasModel && !hasStage {
			errs = append(errs, Error{Path: "stages." + key, Msg: "a training stage needs base_model (a directory or hub id) or base_stage",
				Positions: at(cue.MakePath(cue.Str("stages"), cue.Str(key), cue.Str("kind")))})
		}
	}
	for _, name := range keys(e.Rosters) {
		seen := map[string]int{}
		for i, a := range e.Rosters[name].Agents {
			if j, dup := seen[agentKey(a.Name)]; dup {
				msg := fmt.Sprintf("duplicate agent name %q (also agents.%d)", a.Name, j)
				if other := e.Rosters[name].Agents[j].Name; other != a.Name {
					msg = fmt.Sprintf("agent name %q is agents.%d's %q up to case and spacing", a.Name, j, other)
				}
				errs = append(errs, Error{
					Path: fmt.Sprintf("rosters.%s.agents.%d.name", name, i),
					Msg:  msg,
					Positions: at(cue.MakePath(cue.Str("rosters"), cue.Str(name), cue.Str("agents"),
						cue.Index(i), cue.Str("name"))),
				})
			}
			seen[agentKey(a.Name)] = i
		}
	}
	for _, name := range keys(e.Endpoints) {
		ms := e.Endpoints[name].ModelStage
		if ms == "" {
			continue
		}
		var msg string
		if st, ok := e.Stages[ms]; !ok {
			msg = fmt.Sprintf("unknown stage %q (%s)", ms, known("stages"))
		} else if !slices.Contains(e.Kinds.ModelKinds(), st.Kind) {
			msg = fmt.Sprintf("stage %q has kind %s, but model_stage must name a stage of kind %s",
				ms, st.Kind, orList(e.Kinds.ModelKinds()))
		} else {
			continue
		}
		errs = append(errs, Error{Path: "endpoints." + name + ".model_stage", Msg: msg,
			Positions: at(cue.MakePath(cue.Str("endpoints"), cue.Str(name), cue.Str("model_stage")))})
	}
	for _, name := range keys(e.Judges) {
		if ep := e.Judges[name].Endpoint; ep != "" && !exists["endpoints"](ep) {
			errs = append(errs, Error{Path: "judges." + name + ".endpoint",
				Msg:       fmt.Sprintf("unknown endpoint %q (%s)", ep, known("endpoints")),
				Positions: at(cue.MakePath(cue.Str("judges"), cue.Str(name), cue.Str("endpoint")))})
		}
	}
	for _, name := range keys(e.Rewards) {
		r := e.Rewards[name]
		if r.Stage != "" {
			if st, ok := e.Stages[r.Stage]; !ok || !slices.Contains(e.Kinds.RewardModelKinds(), st.Kind) {
				errs = append(errs, Error{Path: "rewards." + name + ".stage",
					Msg:       fmt.Sprintf("%q is not a %s stage", r.Stage, orList(e.Kinds.RewardModelKinds())),
					Positions: at(cue.MakePath(cue.Str("rewards"), cue.Str(name), cue.Str("stage")))})
			}
		}
	}
	errs = append(errs, datasetChecks(e, at)...)
	errs = append(errs, adapterBases(e, at)...)
	if len(errs) == 0 {
		errs = append(errs, cycles(e, at)...)
	}
	return errs
}

// cycles reports each dependency cycle among stages once.
func cycles(e *Experiment, at func(cue.Path) []string) Errors {
	deps := Dependencies(e)
	state := map[string]int{} // 0 new, 1 on stack, 2 done
	var stack []string
	var errs Errors
	var visit func(string)
	visit = func(n string) {
		state[n] = 1
		stack = append(stack, n)
		for _, d := range deps[n] {
			switch state[d] {
			case 0:
				visit(d)
			case 1:
				i := indexOf(stack, d)
				cyc := append(append([]string(nil), stack[i:]...), d)
				errs = append(errs, Error{Path: "stages." + d,
					Msg:       "stage cycle: " + strings.Join(reverse(cyc), " -> "),
					Positions: at(cue.MakePath(cue.Str("stages"), cue.Str(d), cue.Str("kind")))})
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = 2
	}
	for _, k := range keys(e.Stages) {
		if state[k] == 0 {
			visit(k)
		}
	}
	return errs
}

// Dependencies maps each stage to the stages it reads from or runs after.
func Dependencies(e *Experiment) map[string][]string {
	out := map[string][]string{}
	for key, st := range e.Stages {
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(st.Raw, &fields)
		set := map[string]bool{}
		for _, ref := range e.Kinds.StageRefs(st.Kind) {
			if ref.Target != "stages" {
				continue
			}
			for _, n := range refNames(fields[ref.Field], ref.List) {
				if _, ok := e.Stages[n]; ok && n != key {
					set[n] = true
				}
			}
		}
		for _, rn := range rewardsOf(fields) {
			if r, ok := e.Rewards[rn]; ok && r.Stage != "" {
				set[r.Stage] = true
			}
		}
		var ep []string
		for _, ref := range e.Kinds.StageRefs(st.Kind) {
			if ref.Target == "endpoints" {
				ep = append(ep, refNames(fields[ref.Field], ref.List)...)
			}
		}
		for _, j := range refNames(fields["judges"], true) {
			ep = append(ep, e.Judges[j].Endpoint)
		}
		for _, m := range refNames(fields["metrics"], true) {
			ep = append(ep, e.Metrics[m].Endpoint)
		}
		for _, n := range ep {
			if m := e.Endpoints[n].ModelStage; m != "" && m != key && e.Stages[m].Kind != "" {
				set[m] = true
			}
		}
		out[key] = keys(set)
	}
	return out
}

func rewardsOf(fields map[string]json.RawMessage) []string {
	return refNames(fields["rewards"], true)
}

func refNames(raw json.RawMessage, list bool) []string {
	if len(raw) == 0 {
		return nil
	}
	if list {
		var xs []string
		_ = json.Unmarshal(raw, &xs)
		return xs
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || s == "" {
		return nil
	}
	return []string{s}
}

// agentKey is an agent name as people tell agents apart: case and runs
// of white space do not count ("The Anchor" and "the  anchor" are one agent).
func agentKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// orList renders kinds as "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

func singular(target string) string {
	return map[string]string{"stages": "stage", "datasets": "dataset", "rosters": "roster",
		"endpoints": "endpoint", "judges": "judge", "metrics": "metric", "rewards": "reward"}[target]
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func reverse(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[len(xs)-1-i] = x
	}
	return out
}
