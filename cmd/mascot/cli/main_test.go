package cli

import (
	"os"
	"testing"
)

// TestMain lets the test binary be the mascot binary that jobs and
// plugins re-execute (os.Executable): `stage-exec` inside a (fake) Slurm
// job, `plugin serve NAME` for built-in plugins.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "stage-exec" || os.Args[1] == "plugin") {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}
