package schema

import (
	"encoding/json"
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// Overrides replace values, as a sweep axis or `mascot run -m` does:
// Hydra's override, where `--set` is CUE's unification. CUE has no way to
// replace a concrete value (tour.cue's `turns: 2` conflicts with a
// unified 3), so an override rewrites the declarations of its path in the
// experiment's own files (the file or package named on the command line,
// not what it imports) before they are evaluated, and is then unified
// like --set so a path the files do not write is set too. References to
// the field (`base_model: endpoints.speaker.model`) follow the new value,
// since the rewritten files are evaluated as written. A value an imported
// package fixes still conflicts, with both positions.

// override is one parsed path=value override.
type override struct {
	raw  string
	path []string
	expr string // CUE source of the value
}

// parseOverride splits s ("path=value") into its path's field names and
// the value as CUE source: a CUE literal as written, anything else as a
// string.
func (l *loader) parseOverride(flag, s string) (override, *Error) {
	bad := func(msg string) (override, *Error) {
		return override{}, &Error{Path: flag, Msg: fmt.Sprintf("%s in %q", msg, s)}
	}
	key, val, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return bad("want path=value")
	}
	p := cue.ParsePath(key)
	if p.Err() != nil {
		return bad("invalid path " + key)
	}
	o := override{raw: s, expr: val}
	for _, sel := range p.Selectors() {
		if sel.Type() != cue.StringLabel {
			return bad("only field names are allowed in a " + flag + " path")
		}
		o.path = append(o.path, sel.Unquoted())
	}
	if x := l.ctx.CompileString(val); x.Err() != nil {
		b, _ := json.Marshal(val)
		o.expr = string(b)
	}
	return o, nil
}

// applyOverrides rewrites inst's files for every override and returns the
// values to unify afterwards.
func (l *loader) applyOverrides(inst *build.Instance) ([]cue.Value, Errors) {
	var vals []cue.Value
	var errs Errors
	for _, s := range l.opts.Overrides {
		o, err := l.parseOverride("-m", s)
		if err != nil {
			errs = append(errs, *err)
			continue
		}
		name := "-m " + strings.Join(o.path, ".")
		for _, f := range inst.Files {
			replaceField(f.Decls, o.path, func() ast.Expr {
				x, _ := parser.ParseExpr(name, o.expr)
				return x
			})
		}
		var b strings.Builder
		for _, p := range o.path {
			b.WriteString(ast.NewString(p).Value)
			b.WriteString(": ")
		}
		b.WriteString(o.expr)
		v := l.ctx.CompileString(b.String(), cue.Filename(name))
		if v.Err() != nil {
			errs = append(errs, Error{Path: "-m", Msg: fmt.Sprintf("invalid value in %q", s)})
			continue
		}
		vals = append(vals, v)
	}
	return vals, errs
}

// replaceField sets the value of every declaration of path among decls
// (nested structs, `a: b: c` shorthands, embedded structs and `&` of
// structs) to a fresh expression from val, and returns how many it set.
// Pattern constraints (`[_]: ...`) and comprehensions are not followed:
// which fields they reach is only known once evaluated.
func replaceField(decls []ast.Decl, path []string, val func() ast.Expr) int {
	n := 0
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			name, _, err := ast.LabelName(d.Label)
			if err != nil || name != path[0] {
				continue
			}
			if len(path) == 1 {
				if x := val(); x != nil {
					d.Value = x
					n++
				}
				continue
			}
			n += replaceIn(d.Value, path[1:], val)
		case *ast.EmbedDecl:
			n += replaceIn(d.Expr, path, val)
		}
	}
	return n
}

func replaceIn(e ast.Expr, path []string, val func() ast.Expr) int {
	switch e := e.(type) {
	case *ast.StructLit:
		return replaceField(e.Elts, path, val)
	case *ast.ParenExpr:
		return replaceIn(e.X, path, val)
	case *ast.BinaryExpr:
		if e.Op == token.AND {
			return replaceIn(e.X, path, val) + replaceIn(e.Y, path, val)
		}
	}
	return 0
}
