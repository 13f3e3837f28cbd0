package all_test

import (
	"fmt"
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
	judge, _ := runner.Default.Lookup("judge")
	if !strings.Contains(string(fresh), "| [judge](#judge) | score candidates, turns or episodes with judge plugins | candidates, episodes | no |") ||
		!strings.Contains(string(fresh), strings.TrimSpace(strings.TrimPrefix(judge.Source, "package schema"))) {
		t.Errorf("the judge kind's row or CUE definition is missing:\n%s", fresh)
	}
	// The concurrency the page states is the runner's: change a constant
	// and the page changes with it.
	perSlot := fmt.Sprintf("keeps %d units in flight per slot", runner.UnitsPerEndpointSlot)
	fallback := fmt.Sprintf("or %d when none\nsets one", runner.DefaultConcurrency)
	episodes := fmt.Sprintf("- concurrency: %d× the largest limit of the endpoints in `speaker`, `director`", runner.UnitsPerEndpointSlot)
	for _, want := range []string{perSlot, fallback, episodes} {
		if !strings.Contains(string(fresh), want) {
			t.Errorf("the reference does not say %q", want)
		}
	}
	if strings.Contains(string(fresh), "twice") {
		t.Errorf("the reference still states a multiple the runner does not use")
	}
}

// TestEveryKindIsOneRegistration: the set of kinds schema.Load is given is
// the registry's own, each kind's CUE defines the definition its
// registration names, and the kind's CUE does not repeat its name (the
// union sets it).
func TestEveryKindIsOneRegistration(t *testing.T) {
	kinds := runner.Default.Kinds()
	if got, want := kinds.Names(), runner.Default.Names(); !slices.Equal(got, want) || len(got) < 11 {
		t.Errorf("schema kinds %v, registered kinds %v", got, want)
	}
	for _, n := range runner.Default.Names() {
		k, _ := runner.Default.Lookup(n)
		spec, _ := kinds.Lookup(n)
		if k.Definition != spec.Definition || k.Summary == "" || k.Version == "" || k.New == nil {
			t.Errorf("kind %s: definition %q, schema's %q, summary %q, version %q", n, k.Definition, spec.Definition, k.Summary, k.Version)
		}
		if strings.Contains(k.Source, strconv.Quote(n)) {
			t.Errorf("kind %s: its CUE repeats the kind's name", n)
		}
	}
}

// TestVendorWritesEveryKind: `mascot schema vendor` (what .ci/run hands to
// the cue CLI) writes each kind's CUE from its folder and the union over
// all of them.
func TestVendorWritesEveryKind(t *testing.T) {
	dir := t.TempDir()
	if _, err := schema.Vendor(dir, runner.Default.Kinds()); err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, "cue.mod", "gen", "mascot.dev", "schema")
	union, err := os.ReadFile(filepath.Join(gen, "kinds_gen.cue"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range runner.Default.Names() {
		spec, _ := runner.Default.Lookup(n)
		b, err := os.ReadFile(filepath.Join(gen, "kind_"+n+".cue"))
		if err != nil || string(b) != spec.Source {
			t.Errorf("vendored kind_%s.cue differs from the kind's own CUE (%v)", n, err)
		}
		if !strings.Contains(string(union), strconv.Quote(n)+": "+spec.Definition+" & {kind: "+strconv.Quote(n)+"}") {
			t.Errorf("the vendored union lacks %s: %s", n, spec.Definition)
		}
	}
}
