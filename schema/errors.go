package schema

import (
	"fmt"
	"io"
	"sort"
	"strings"

	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
)

// Error is one positioned problem in an experiment spec.
type Error struct {
	Path      string   // field path, "stages.cand.k"; empty for file-level errors
	Msg       string   // what is wrong
	Positions []string // file:line:col, most relevant first
}

func (e Error) String() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if len(e.Positions) > 0 {
		b.WriteString(":")
		for _, p := range e.Positions {
			b.WriteString("\n    ")
			b.WriteString(p)
		}
	}
	return b.String()
}

// Errors is every problem found in a spec; loading reports them all, not
// just the first.
type Errors []Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, "\n")
}

// Print writes one error per block.
func (es Errors) Print(w io.Writer) {
	for _, e := range es {
		fmt.Fprintln(w, e.String())
	}
}

// posRewriter turns overlay paths into what the user recognises.
type posRewriter struct {
	cwd      string
	prefixes map[string]string // absolute prefix -> display prefix
}

func (r posRewriter) pos(p token.Pos) string {
	if !p.IsValid() {
		return ""
	}
	name := p.Filename()
	for pre, disp := range r.prefixes {
		if strings.HasPrefix(name, pre) {
			name = disp + strings.TrimPrefix(name, pre)
			break
		}
	}
	if r.cwd != "" && strings.HasPrefix(name, r.cwd+"/") {
		name = "./" + strings.TrimPrefix(name, r.cwd+"/")
	}
	if p.Line() == 0 {
		return name
	}
	return fmt.Sprintf("%s:%d:%d", name, p.Line(), p.Column())
}

// fromCUE converts a CUE error tree into Errors, deduplicated and in a
// stable order.
func (r posRewriter) fromCUE(err error) Errors {
	var out Errors
	seen := map[string]bool{}
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		path := strings.TrimPrefix(strings.Join(e.Path(), "."), "#Experiment")
		path = strings.TrimPrefix(path, ".")
		var poss []string
		seenPos := map[string]bool{}
		add := func(p token.Pos) {
			s := r.pos(p)
			if s != "" && !seenPos[s] {
				seenPos[s] = true
				poss = append(poss, s)
			}
		}
		add(e.Position())
		ins := e.InputPositions()
		sort.Slice(ins, func(i, j int) bool { return ins[i].String() < ins[j].String() })
		for _, p := range ins {
			add(p)
		}
		x := Error{Path: path, Msg: msg, Positions: poss}
		if k := x.String(); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}
