package schema

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
)

// Vendor writes the embedded schema and experiments, with the stage union
// over kinds and each kind's CUE, under dir/cue.mod/gen/mascot.dev (and a
// cue.mod/module.cue when dir has none), so the cue CLI and editors resolve
// "mascot.dev/..." imports.
func Vendor(dir string, kinds *Kinds) (int, error) {
	files, err := schemaFiles(kinds)
	if err != nil {
		return 0, fmt.Errorf("reading embedded files: %w", err)
	}
	mod := filepath.Join(dir, "cue.mod", "module.cue")
	if _, err := os.Stat(mod); os.IsNotExist(err) {
		if err := os.MkdirAll(filepath.Dir(mod), 0o755); err != nil {
			return 0, fmt.Errorf("vendoring schema: %w", err)
		}
		body := "module: \"user.local@v0\"\nlanguage: version: \"" + languageVersion + "\"\n"
		if err := os.WriteFile(mod, []byte(body), 0o644); err != nil {
			return 0, fmt.Errorf("vendoring schema: %w", err)
		}
	}
	for rel, b := range files {
		p := filepath.Join(genDir(dir), filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, fmt.Errorf("vendoring schema: %w", err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return 0, fmt.Errorf("vendoring schema: %w", err)
		}
	}
	return len(files), nil
}

// Describe returns the top-level description string of an embedded
// experiment, read from its source without evaluating it (paper configs
// need tags to evaluate).
func Describe(name string) string {
	files, err := embeddedFiles()
	if err != nil {
		return ""
	}
	for rel, b := range files {
		if path.Dir(rel) != "experiments/"+name {
			continue
		}
		f, err := parser.ParseFile(rel, b)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			if n, _, _ := ast.LabelName(fd.Label); n != "description" {
				continue
			}
			if lit, ok := fd.Value.(*ast.BasicLit); ok {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					return strings.TrimSpace(s)
				}
			}
		}
	}
	return ""
}

// ImportPath is the CUE import path of an embedded experiment, qualified
// with its package name when the directory name is not one
// ("mascot.dev/experiments/paper/ablation-p:ablationp").
func ImportPath(name string) string {
	p := ImportPrefix + "/experiments/" + name
	files, err := embeddedFiles()
	if err != nil {
		return p
	}
	for rel, b := range files {
		if path.Dir(rel) != "experiments/"+name {
			continue
		}
		if f, err := parser.ParseFile(rel, b, parser.PackageClauseOnly); err == nil {
			if pkg := f.PackageName(); pkg != "" && pkg != path.Base(name) {
				return p + ":" + pkg
			}
		}
		break
	}
	return p
}
