package train_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/runner"
)

// TestHostileStageKeyDeletesNothingOutsideTheRun runs a pretrain stage whose
// key climbs out of the run directory. Validation refuses such keys; this
// bypasses it (as a hand-edited run_config.json would) and checks that the
// training stage's output directory is still refused, so the sentinel
// directories beside the run, and the other runs, survive.
func TestHostileStageKeyDeletesNothingOutsideTheRun(t *testing.T) {
	for _, key := range []string{"../../../victim", "..", "../victim"} {
		t.Run(key, func(t *testing.T) {
			l := writeSpec(t, "")
			st := l.Experiment.Stages["pre"]
			delete(l.Experiment.Stages, "pre")
			st.Key = key
			l.Experiment.Stages[key] = st

			h := newHarness(t, l, nil)
			root := t.TempDir()
			runs := filepath.Join(root, "a", "b", "runs")
			h.opts.RunsDir = runs
			// Sentinels: a directory outside the runs and another run's files.
			victim := filepath.Join(root, "victim", "keep.txt")
			other := filepath.Join(runs, "older-run", "keep.txt")
			climb := filepath.Join(root, "a", "victim", "keep.txt")
			for _, p := range []string{victim, other, climb} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("precious"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sum, err := runner.Execute(context.Background(), h.opts)
			for _, p := range []string{victim, other, climb} {
				if b, err := os.ReadFile(p); err != nil || string(b) != "precious" {
					t.Errorf("sentinel %s lost: %v", p, err)
				}
			}
			if err == nil {
				t.Fatalf("stage %q ran without error", key)
			}
			if len(sum.Stages) != 1 || !strings.Contains(sum.Stages[0].Error, "not a plain directory name") {
				t.Errorf("stages = %+v, want the stage to fail on its key", sum.Stages)
			}
		})
	}
}
