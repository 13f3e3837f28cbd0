package runner_test

import (
	"strings"
	"testing"

	"mascot.dev/mascot/runner"
)

// TestRegistryRefusesUndeclaredAndMismatchedKinds: a runner kind must be
// declared to the schema (by its declaration package or its Decl) under
// the definition it names, and only once per registry.
func TestRegistryRefusesUndeclaredAndMismatchedKinds(t *testing.T) {
	r := runner.NewEmptyRegistry()
	err := r.Add(runner.Kind{Name: "no-such-kind", Version: "1"})
	if err == nil || !strings.Contains(err.Error(), `stage kind "no-such-kind" has no CUE definition in the schema: import its declaration package or set Kind.Decl`) {
		t.Errorf("undeclared kind: err = %v", err)
	}
	err = r.Add(runner.Kind{Name: "candidates", Version: "1", Definition: "#Episodes"})
	if err == nil || !strings.Contains(err.Error(), "names definition #Episodes, the schema declares #Candidates") {
		t.Errorf("wrong definition: err = %v", err)
	}
	ok := runner.Kind{Name: "candidates", Version: "1", Definition: "#Candidates"}
	if err := r.Add(ok); err != nil {
		t.Fatalf("declared kind: %v", err)
	}
	if err := r.Add(ok); err == nil || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("duplicate: err = %v", err)
	}
}
