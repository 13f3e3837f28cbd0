package results

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestResultsLayers: the results area's imports flow down
// (docs/design/layers.md). Each package's non-test files may import, of
// this module, only the packages listed for it.
func TestResultsLayers(t *testing.T) {
	const mod = "mascot.dev/mascot/"
	for dir, allowed := range map[string][]string{
		"jsonl":              {},
		"walvfs":             {},
		".":                  {"results/jsonl", "results/walvfs", "experiments/prompts"},
		"transfer":           {"results", "results/jsonl", "internal/labels", "internal/gcpace"},
		"report":             {"results", "results/figures", "plugins/stats"},
		"../runner/dialogue": {"results/jsonl", "runner/datasets", "llm"},
	} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				rel, ok := strings.CutPrefix(path, mod)
				if !ok {
					continue
				}
				found := false
				for _, a := range allowed {
					found = found || rel == a
				}
				if !found {
					t.Errorf("%s imports %s, outside its layer's %v", f, rel, allowed)
				}
			}
		}
	}
}
