package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLowerLayersImportNoRunner: imports flow down. The experiment
// language, the LLM client, the plugins (the built-in judges included),
// the results store and the trainer sit below the runner, so none of them,
// nor anything they import, is a runner package.
func TestLowerLayersImportNoRunner(t *testing.T) {
	for _, pkgs := range []string{"./schema/...", "./llm/...", "./plugins/...", "./results/...", "./trainer/..."} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkgs)
		cmd.Dir = "../.."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkgs, err)
		}
		if !strings.Contains(string(out), "mascot.dev/mascot/") {
			t.Fatalf("go list %s listed no mascot package:\n%s", pkgs, out)
		}
		for _, p := range strings.Fields(string(out)) {
			if p == "mascot.dev/mascot/runner" || strings.HasPrefix(p, "mascot.dev/mascot/runner/") {
				t.Errorf("%s depends on %s", pkgs, p)
			}
		}
	}
}
