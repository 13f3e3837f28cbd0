package all_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/all"
	"mascot.dev/mascot/schema"
)

// TestStageKindsReferenceIsCurrent regenerates docs/stages.md from the
// registry and compares it with the committed page. UPDATE=1 rewrites it.
func TestStageKindsReferenceIsCurrent(t *testing.T) {
	committed := filepath.Join("..", "..", "..", "docs", "stages.md")
	fresh := all.Reference(runner.Default)
	if os.Getenv("UPDATE") == "1" {
		if err := os.WriteFile(committed, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(committed)
	if err != nil || string(have) != string(fresh) {
		t.Errorf("docs/stages.md is stale (%v); regenerate: UPDATE=1 go test ./runner/stages/all -run TestStageKindsReferenceIsCurrent", err)
	}
	for _, n := range runner.Default.Names() {
		if !strings.Contains(string(fresh), "\n## "+n+"\n") {
			t.Errorf("the reference has no section for kind %s", n)
		}
	}
	spec, _ := schema.LookupKind("judge")
	if !strings.Contains(string(fresh), "| [judge](#judge) | score candidates, turns or episodes with judge plugins | candidates, episodes | no |") ||
		!strings.Contains(string(fresh), strings.TrimSpace(strings.TrimPrefix(spec.Source, "package schema"))) {
		t.Errorf("the judge kind's row or CUE definition is missing:\n%s", fresh)
	}
}

// TestEveryKindIsDeclaredAndRegistered: the binary's kinds and the schema's
// kinds are the same set, each with the definition its declaration names,
// (each kind declares itself in its registration call).
func TestEveryKindIsDeclaredAndRegistered(t *testing.T) {
	if got, want := runner.Default.Names(), schema.Kinds(); !slices.Equal(got, want) {
		t.Errorf("registered kinds %v, declared kinds %v", got, want)
	}
	for _, n := range runner.Default.Names() {
		k, _ := runner.Default.Lookup(n)
		spec, _ := schema.LookupKind(n)
		if k.Definition != spec.Definition || k.Summary == "" {
			t.Errorf("kind %s: definition %q, declared %q, summary %q", n, k.Definition, spec.Definition, k.Summary)
		}
	}
}

// TestVendorWritesEveryKind: `mascot schema vendor` (what .ci/run hands to
// the cue CLI) writes each kind's CUE from its folder and the union over
// all of them.
func TestVendorWritesEveryKind(t *testing.T) {
	dir := t.TempDir()
	if _, err := schema.Vendor(dir); err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, "cue.mod", "gen", "mascot.dev", "schema")
	union, err := os.ReadFile(filepath.Join(gen, "kinds_gen.cue"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range runner.Default.Names() {
		spec, _ := schema.LookupKind(n)
		b, err := os.ReadFile(filepath.Join(gen, "kind_"+n+".cue"))
		if err != nil || string(b) != spec.Source {
			t.Errorf("vendored kind_%s.cue differs from the kind's own CUE (%v)", n, err)
		}
		if !strings.Contains(string(union), strconv.Quote(n)+": "+spec.Definition) {
			t.Errorf("the vendored union lacks %s: %s", n, spec.Definition)
		}
	}
}
