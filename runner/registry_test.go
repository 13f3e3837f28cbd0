package runner_test

import (
	"strings"
	"testing"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestRegistryRefusesUnusableAndDuplicateKinds: a kind must bring a CUE
// source that defines the definition it names, and a registry holds a
// name once; the set it hands to schema.Load is exactly its kinds.
func TestRegistryRefusesUnusableAndDuplicateKinds(t *testing.T) {
	r := runner.NewEmptyRegistry()
	err := r.Add(runner.Kind{KindSpec: schema.KindSpec{Name: "no-source", Definition: "#NoSource"}, Version: "1"})
	if err == nil || !strings.Contains(err.Error(), `declaring stage kind "no-source": its Source does not define #NoSource`) {
		t.Errorf("a kind without its CUE: err = %v", err)
	}
	err = r.Add(runner.Kind{KindSpec: schema.KindSpec{Name: "bare", Definition: "Bare", Source: "Bare: {}"}, Version: "1"})
	if err == nil || !strings.Contains(err.Error(), "want a name and a #Definition") {
		t.Errorf("a definition without #: err = %v", err)
	}
	cand, ok := runner.Default.Lookup("candidates")
	if !ok {
		t.Fatal("candidates is not registered")
	}
	if err := r.Add(cand); err != nil {
		t.Fatalf("a registered kind: %v", err)
	}
	if err := r.Add(cand); err == nil || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("duplicate: err = %v", err)
	}
	if got := r.Kinds().Names(); len(got) != 1 || got[0] != "candidates" {
		t.Errorf("the registry's schema kinds are %v, want [candidates]", got)
	}
	if _, ok := r.Kinds().Lookup("episodes"); ok {
		t.Error("a kind of another registry is in this one's set")
	}
}

// TestWithStageKeepsTheDeclaration: a test's stand-in replaces how a kind
// runs, not what the schema knows of it, and leaves the original registry
// as it was.
func TestWithStageKeepsTheDeclaration(t *testing.T) {
	fake := runner.Default.WithStage("judge", "test", func(*runner.Env, schema.Stage) (runner.Stage, error) { return nil, nil })
	k, _ := fake.Lookup("judge")
	orig, _ := runner.Default.Lookup("judge")
	if k.Version != "test" || k.Definition != orig.Definition || k.Source != orig.Source || len(k.Refs) != len(orig.Refs) {
		t.Errorf("stand-in judge = version %q definition %q, want version test and the declaration kept", k.Version, k.Definition)
	}
	if orig.Version == "test" {
		t.Error("WithStage changed the registry it was called on")
	}
	defer func() {
		if recover() == nil {
			t.Error("WithStage of an unregistered kind did not panic")
		}
	}()
	runner.Default.WithStage("no-such-kind", "test", nil)
}
