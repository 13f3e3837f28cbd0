package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

var (
	disjHeader  = regexp.MustCompile(`^\d+ errors in empty disjunction:?$`)
	conflicting = regexp.MustCompile(`^conflicting values (.+?) and (.+?)( \(mismatched types .*\))?$`)
)

// tidy turns CUE's disjunction noise into one message per problem: a
// bound or type error wins over "conflicting values <default> and x", and a
// value outside an enumeration becomes "invalid value x (want one of ...)".
// User positions are listed before schema positions.
func tidy(errs Errors) Errors {
	var order []string
	groups := map[string][]Error{}
	var out Errors
	for _, e := range errs {
		if disjHeader.MatchString(e.Msg) {
			continue
		}
		if _, ok := groups[e.Path]; !ok {
			order = append(order, e.Path)
		}
		groups[e.Path] = append(groups[e.Path], e)
	}
	for _, p := range order {
		out = append(out, tidyGroup(groups[p])...)
	}
	for i := range out {
		sortPositions(out[i].Positions)
	}
	return out
}

func tidyGroup(g []Error) Errors {
	var other, conf Errors
	for _, e := range g {
		if conflicting.MatchString(e.Msg) {
			conf = append(conf, e)
		} else {
			other = append(other, e)
		}
	}
	if len(other) > 0 || len(conf) < 2 {
		if len(other) > 0 {
			return other
		}
		return conf
	}
	// Find the user's value: the side common to every conflict.
	count := map[string]int{}
	for _, e := range conf {
		m := conflicting.FindStringSubmatch(e.Msg)
		count[m[1]]++
		if m[2] != m[1] {
			count[m[2]]++
		}
	}
	user := ""
	for v, n := range count {
		if n == len(conf) {
			user = v
		}
	}
	if user == "" || !onlySchemaAlternatives(conf) {
		return conf
	}
	var alts []string
	var typed Errors
	poss := map[string]bool{}
	for _, e := range conf {
		m := conflicting.FindStringSubmatch(e.Msg)
		alt := m[1]
		if alt == user {
			alt = m[2]
		}
		if !isLiteral(alt) {
			typed = append(typed, e)
		}
		alts = append(alts, alt)
		for _, p := range e.Positions {
			poss[p] = true
		}
	}
	if len(typed) > 0 {
		return typed[len(typed)-1:]
	}
	sort.Strings(alts)
	var ps []string
	for p := range poss {
		ps = append(ps, p)
	}
	return Errors{{Path: g[0].Path, Msg: fmt.Sprintf("invalid value %s (want one of %s)", user, strings.Join(alts, ", ")),
		Positions: userFirst(ps)}}
}

func isLiteral(s string) bool {
	if strings.HasPrefix(s, `"`) || s == "true" || s == "false" || s == "null" {
		return true
	}
	_, err := fmt.Sscanf(s, "%g", new(float64))
	return err == nil
}

// userFirst keeps user positions and, after them, at most one schema
// position.
func userFirst(ps []string) []string {
	sortPositions(ps)
	var out []string
	schemaSeen := false
	for _, p := range ps {
		if strings.HasPrefix(p, ImportPrefix+"/") {
			if schemaSeen {
				continue
			}
			schemaSeen = true
		}
		out = append(out, p)
	}
	return out
}

func sortPositions(ps []string) {
	sort.SliceStable(ps, func(i, j int) bool {
		ui, uj := !strings.HasPrefix(ps[i], ImportPrefix+"/"), !strings.HasPrefix(ps[j], ImportPrefix+"/")
		if ui != uj {
			return ui
		}
		return false
	})
}

// anchor gives errors that only point into the schema the position of the
// nearest enclosing field the user wrote (a missing field is reported where
// its parent is written), or the user's file when no enclosing field is
// written (a missing top-level field), so every message names a place in
// the user's files.
func anchor(errs Errors, pos func(path string) string, file string) Errors {
	for i, e := range errs {
		hasUser := false
		for _, p := range e.Positions {
			hasUser = hasUser || !strings.HasPrefix(p, ImportPrefix+"/")
		}
		if hasUser || e.Path == "" || strings.HasPrefix(e.Path, "--set") {
			continue
		}
		parts := strings.Split(e.Path, ".")
		found := false
		for n := len(parts); n > 0 && !found; n-- {
			if p := pos(strings.Join(parts[:n], ".")); p != "" && !strings.HasPrefix(p, ImportPrefix+"/") {
				errs[i].Positions = append([]string{p}, e.Positions...)
				found = true
			}
		}
		if !found && file != "" && !strings.HasPrefix(file, ImportPrefix+"/") {
			errs[i].Positions = append([]string{file}, e.Positions...)
		}
	}
	return errs
}

// onlySchemaAlternatives reports whether the conflicts are one value
// against alternatives that all come from the schema (an enumeration or a
// default); a conflict between two user values is left as CUE says it.
func onlySchemaAlternatives(conf Errors) bool {
	common := map[string]int{}
	for _, e := range conf {
		for _, p := range e.Positions {
			common[p]++
		}
	}
	for p, n := range common {
		if n < len(conf) && !strings.HasPrefix(p, ImportPrefix+"/schema/") {
			return false
		}
	}
	return true
}
