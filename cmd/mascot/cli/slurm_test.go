package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
)

// TestRunOnFakeSlurmMatchesLocal runs `mascot run --set
// executor.kind=slurm` with the fake sbatch/squeue/scontrol/scancel of
// runner/slurm on PATH: the CLI's wiring (the only way a run finds the
// Slurm executor) hands the stage to Slurm, whose job runs this binary's
// real `stage-exec`, and the controller ends with the same units and rows
// as a local run.
func TestRunOnFakeSlurmMatchesLocal(t *testing.T) {
	fake, err := filepath.Abs("../../../runner/slurm/testdata")
	must(t, err)
	state := t.TempDir()
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_SLURM", state)
	spec := candidatesSpec(t)
	run := func(args ...string) *results.Store {
		dir := t.TempDir()
		db := filepath.Join(dir, "m.db")
		var out, errb bytes.Buffer
		args = append([]string{"run", spec, "--db", db, "--runs-dir", filepath.Join(dir, "runs")}, args...)
		if code := Run(context.Background(), args, &out, &errb); code != 0 {
			log, _ := os.ReadFile(filepath.Join(state, "101.log"))
			t.Fatalf("mascot %v: exit %d\n%s\njob log:\n%s", args, code, errb.String(), log)
		}
		st, err := results.Open(db)
		must(t, err)
		t.Cleanup(func() { st.Close() })
		return st
	}
	local := run()
	remote := run("--set", "executor.kind=slurm")
	log, err := os.ReadFile(filepath.Join(state, "sbatch.log"))
	must(t, err)
	if n := strings.Count(string(log), "\n"); n != 1 {
		t.Fatalf("sbatch ran %d times, want once:\n%s", n, log)
	}
	for _, q := range []string{
		`SELECT group_concat(fingerprint) FROM (SELECT fingerprint FROM units WHERE state = 'done' ORDER BY 1)`,
		`SELECT group_concat(k) FROM (SELECT context_id || '/' || persona || '/' || sample_idx AS k FROM candidates ORDER BY 1)`,
		`SELECT COUNT(*) FROM run_units`,
	} {
		var a, b string
		must(t, local.Reader().QueryRow(q).Scan(&a))
		must(t, remote.Reader().QueryRow(q).Scan(&b))
		if a != b || a == "" || a == "0" {
			t.Fatalf("%s:\nlocal %s\nslurm %s", q, a, b)
		}
	}
}
