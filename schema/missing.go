package schema

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
)

var (
	incomplete     = regexp.MustCompile(`^incomplete value (.+)$`)
	unresolvedDisj = regexp.MustCompile(`^unresolved disjunction (.+?)( \(type \w+\))?$`)
	emptyList      = regexp.MustCompile(`^incompatible list lengths \(0 and \d+\)$`)
)

// missingFields says what CUE's "incomplete value", "unresolved
// disjunction" and "incompatible list lengths" mean when the user left
// something out: "missing field kind (one of ...)" at the field the user
// did not write, and "needs at least one element" at an empty list. Errors
// for the fields inside a missing list (agents.0.name, agents.0.role, ...)
// collapse into the list's one message. written reports whether the user's
// config (files, overrides, --set) writes the value at a path; an
// incomplete value the user did write is left as CUE says it.
func missingFields(errs Errors, written func(sel []cue.Selector) bool, userValue func(sel []cue.Selector) (cue.Value, bool)) Errors {
	var out Errors
	at := map[string]int{} // new path -> index in out
	add := func(e Error) {
		if i, ok := at[e.Path+"\x00"+e.Msg]; ok {
			out[i].Positions = mergePositions(out[i].Positions, e.Positions)
			return
		}
		at[e.Path+"\x00"+e.Msg] = len(out)
		out = append(out, e)
	}
	for _, e := range errs {
		parts := splitPath(e.Path)
		switch {
		case emptyList.MatchString(e.Msg):
			e.Msg = "needs at least one element"
		case conflicting.MatchString(e.Msg):
			// One user value against the schema's only allowed one (an
			// enumeration of one, such as rubric_version).
			m := conflicting.FindStringSubmatch(e.Msg)
			fromSchema := false
			for _, p := range e.Positions {
				fromSchema = fromSchema || strings.HasPrefix(p, ImportPrefix+"/schema/")
			}
			if uv, ok := userValue(selectors(parts)); ok && m[3] == "" && fromSchema {
				if got := fmt.Sprint(uv); got == m[2] && isLiteral(m[1]) {
					e.Msg = fmt.Sprintf("invalid value %s (want %s)", m[2], m[1])
				} else if got == m[1] && isLiteral(m[2]) {
					e.Msg = fmt.Sprintf("invalid value %s (want %s)", m[1], m[2])
				}
			}
		case unresolvedDisj.MatchString(e.Msg) && (len(parts) == 2 && (parts[0] == "stages" || parts[0] == "rewards")) &&
			!written(selectors(append(parts, "kind"))):
			m := unresolvedDisj.FindStringSubmatch(e.Msg)
			e.Path += ".kind"
			e.Msg = fmt.Sprintf("missing field kind (one of %s)", alternatives(m[1]))
		case incomplete.MatchString(e.Msg) && len(parts) > 0 && !written(selectors(parts)):
			m := incomplete.FindStringSubmatch(e.Msg)
			n := 0 // the longest prefix the user wrote
			for n < len(parts) && written(selectors(parts[:n+1])) {
				n++
			}
			switch _, isIndex := index(parts[n]); {
			case isIndex:
				// A list the user wrote, shorter than the schema asks.
				e.Path = strings.Join(parts[:n], ".")
				e.Msg = "needs at least one element"
			case n == len(parts)-1:
				e.Msg = "missing field " + parts[n] + want(m[1])
			default:
				// A field holding required fields: the outermost one
				// missing is what to write.
				e.Path = strings.Join(parts[:n+1], ".")
				e.Msg = "missing field " + parts[n]
			}
		}
		add(e)
	}
	for i := range out {
		out[i].Positions = userFirst(out[i].Positions)
	}
	return out
}

// want describes the value a missing field needs, when that says more
// than its type: an enumeration's values.
func want(v string) string {
	if strings.Contains(v, "|") {
		return " (one of " + alternatives(v) + ")"
	}
	return ""
}

func alternatives(disj string) string {
	alts := strings.Split(disj, " | ")
	for i := range alts {
		alts[i] = strings.TrimPrefix(strings.TrimSpace(alts[i]), "*")
	}
	return strings.Join(alts, ", ")
}

func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

func index(s string) (int, bool) {
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0
}

func selectors(parts []string) []cue.Selector {
	sel := make([]cue.Selector, len(parts))
	for i, p := range parts {
		if n, ok := index(p); ok {
			sel[i] = cue.Index(n)
		} else {
			sel[i] = cue.Str(p)
		}
	}
	return sel
}

func mergePositions(a, b []string) []string {
	seen := map[string]bool{}
	for _, p := range a {
		seen[p] = true
	}
	for _, p := range b {
		if !seen[p] {
			a = append(a, p)
			seen[p] = true
		}
	}
	return a
}
