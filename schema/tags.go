package schema

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// Tag is one @tag field a config declares: what `-t NAME=VALUE` sets.
type Tag struct {
	// Name is the tag's name (what -t takes).
	Name string `json:"name"`
	// Field is the label of the field it sets (e.g. _vllm).
	Field string `json:"field"`
	// Required is true when the field has no default: a run needs -t.
	Required bool `json:"required"`
	// Default is the default value in CUE syntax, when there is one.
	Default string `json:"default,omitempty"`
	// Doc is the field's doc comment (what the value is).
	Doc string `json:"doc,omitempty"`
	// Typed is the tag's type= attribute ("" for string).
	Typed string `json:"type,omitempty"`
	pos   token.Pos
}

// fileTags lists the @tag fields of one file in source order.
func fileTags(f *ast.File) []Tag {
	var out []Tag
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
			parts := strings.Split(body, ",")
			t := Tag{Name: strings.TrimSpace(parts[0]), Field: label(field), Doc: docText(field), pos: a.Pos()}
			for _, p := range parts[1:] {
				if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && k == "type" {
					t.Typed = strings.TrimSpace(v)
				}
			}
			if d := defaultExpr(field.Value); d != nil {
				if b, err := format.Node(d); err == nil {
					t.Default = string(b)
				}
			} else {
				t.Required = true
			}
			out = append(out, t)
		}
		return true
	}, nil)
	return out
}

// instanceTags lists the tags of the top-level package: CUE injects -t
// values only there, so tags in imported packages are not the user's.
func instanceTags(inst *build.Instance) []Tag {
	var out []Tag
	for _, f := range inst.Files {
		out = append(out, fileTags(f)...)
	}
	return out
}

// EmbeddedTags lists the tags the embedded experiment name declares,
// required ones first, each once (by name), without loading it: what
// `mascot list` shows.
func EmbeddedTags(name string) ([]Tag, error) {
	files, err := embeddedFiles()
	if err != nil {
		return nil, err
	}
	var rels []string
	for rel := range files {
		if path.Dir(rel) == "experiments/"+name && strings.HasSuffix(rel, ".cue") {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	var all []Tag
	for _, rel := range rels {
		f, err := parser.ParseFile(rel, files[rel], parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", rel, err)
		}
		all = append(all, fileTags(f)...)
	}
	return uniqueTags(all), nil
}

// uniqueTags keeps each name once (required if any field is) and puts
// the required tags first, each group in declaration order.
func uniqueTags(all []Tag) []Tag {
	var out []Tag
	index := map[string]int{}
	for _, t := range all {
		if i, ok := index[t.Name]; ok {
			out[i].Required = out[i].Required || t.Required
			continue
		}
		index[t.Name] = len(out)
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Required && !out[j].Required })
	return out
}

// missingTags reports each @tag field of the top-level package that has no
// default and was not given with -t, naming the tag to set. Server URLs are
// never defaulted, so this is the error a user sees for a missing URL.
func missingTags(tags []Tag, given []string, rw posRewriter) Errors {
	have := givenTags(given)
	var out Errors
	for _, t := range tags {
		if have[t.Name] || !t.Required {
			continue
		}
		hint := ""
		if t.Doc != "" {
			hint = " (" + t.Doc + ")"
		}
		out = append(out, Error{
			Path:      t.Field,
			Msg:       fmt.Sprintf("tag %q is not set: pass -t %s=VALUE%s", t.Name, t.Name, hint),
			Positions: []string{rw.pos(t.pos)},
		})
	}
	return out
}

func givenTags(given []string) map[string]bool {
	have := map[string]bool{}
	for _, t := range given {
		k, _, _ := strings.Cut(t, "=")
		have[k] = true
	}
	return have
}

// OpenValue is what an open tag (a required tag not set, loaded with
// Options.OpenTags) reads as in the resolved config: its own attribute,
// so `mascot show` says which value -t would fill.
func OpenValue(name string) string { return "@tag(" + name + ")" }

// openTagValues returns -t injections filling each required string tag
// that was not given with its OpenValue, and the names it filled.
func openTagValues(tags []Tag, given []string) (inject, names []string) {
	have := givenTags(given)
	for _, t := range uniqueTags(tags) {
		if have[t.Name] || !t.Required || (t.Typed != "" && t.Typed != "string") {
			continue
		}
		have[t.Name] = true
		inject = append(inject, t.Name+"="+OpenValue(t.Name))
		names = append(names, t.Name)
	}
	return inject, names
}

// defaultExpr returns the *default of a field value, or nil.
func defaultExpr(x ast.Expr) ast.Expr {
	var found ast.Expr
	ast.Walk(x, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.MUL {
			found = u.X
		}
		return found == nil
	}, nil)
	return found
}

func label(f *ast.Field) string {
	name, _, _ := ast.LabelName(f.Label)
	return name
}

// docText is the field's doc comment on one line ("the vLLM server URL").
func docText(f *ast.Field) string {
	for _, cg := range ast.Comments(f) {
		if txt := strings.TrimSpace(cg.Text()); txt != "" && cg.Doc {
			return strings.ReplaceAll(txt, "\n", " ")
		}
	}
	return ""
}
