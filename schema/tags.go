package schema

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/token"
)

// missingTags reports each @tag field of the top-level package that has no
// default and was not given with -t, naming the tag to set. Server URLs are
// never defaulted, so this is the error a user sees for a missing URL.
func missingTags(inst *build.Instance, given []string, rw posRewriter) Errors {
	have := map[string]bool{}
	for _, t := range given {
		k, _, _ := strings.Cut(t, "=")
		have[k] = true
	}
	var out Errors
	for _, f := range inst.Files {
		ast.Walk(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok {
				return true
			}
			for _, a := range field.Attrs {
				key, body := a.Split()
				if key != "tag" {
					continue
				}
				name, _, _ := strings.Cut(body, ",")
				name = strings.TrimSpace(name)
				if have[name] || hasDefault(field.Value) {
					continue
				}
				out = append(out, Error{
					Path:      label(field),
					Msg:       fmt.Sprintf("tag %q is not set: pass -t %s=VALUE%s", name, name, tagHint(field)),
					Positions: []string{rw.pos(a.Pos())},
				})
			}
			return true
		}, nil)
	}
	return out
}

// hasDefault reports whether a field value carries a *default.
func hasDefault(x ast.Expr) bool {
	found := false
	ast.Walk(x, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.MUL {
			found = true
		}
		return !found
	}, nil)
	return found
}

func label(f *ast.Field) string {
	name, _, _ := ast.LabelName(f.Label)
	return name
}

// tagHint turns the field's doc comment into a hint ("the vLLM server URL").
func tagHint(f *ast.Field) string {
	for _, cg := range ast.Comments(f) {
		if txt := strings.TrimSpace(cg.Text()); txt != "" && cg.Doc {
			return " (" + strings.ReplaceAll(txt, "\n", " ") + ")"
		}
	}
	return ""
}
