package train

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/trainer/train"
)

// A training unit's steps reach the viewer's curves while the unit still
// runs (before its commit), and the status line carries step, loss,
// reward, tokens/s and an ETA.
func TestStepsAreRecordedLive(t *testing.T) {
	ctx := context.Background()
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.CreateRun(ctx, results.Run{ID: "r1", Name: "live"}); err != nil {
		t.Fatal(err)
	}
	env := &runner.Env{Store: store, RunID: "r1", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	u := runner.Unit{Key: "train", Fingerprint: "fp-live"}
	if err := store.StartUnit(ctx, results.Unit{Fingerprint: u.Fingerprint, Kind: "train-grpo", StageKey: "grpo", RunID: "r1"}); err != nil {
		t.Fatal(err)
	}
	on := reportSteps(ctx, env, "grpo", "train-grpo", u, 4, 0)
	for step := 1; step <= 2; step++ {
		on(train.Metrics{Step: step, Loss: 0.5 / float64(step), RewardMean: 0.25, TokensPerSec: 800})
	}
	curves, err := store.TrainingCurves(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(curves) != 1 || len(curves[0].Steps) != 2 {
		t.Fatalf("live curves = %+v, want one curve of 2 steps", curves)
	}
	st := curves[0].Steps[1]
	if st.Step != 2 || st.Loss == nil || *st.Loss != 0.25 || st.Reward == nil || *st.Reward != 0.25 || st.StageKey != "grpo" {
		t.Errorf("step 2 recorded as %+v", st)
	}
	if done, _ := store.UnitDone(ctx, u.Fingerprint); done {
		t.Error("recording steps marked the unit done")
	}

	r := &stepReporter{total: 4, first: 0}
	line := r.line(train.Metrics{Step: 2, Loss: 0.25, RewardMean: 0.5, TokensPerSec: 812.4}, 10*time.Second)
	if want := "step=2/4 loss=0.25 reward=0.5 tok/s=812 eta=10s"; line != want {
		t.Errorf("status line %q, want %q", line, want)
	}
	if line := r.line(train.Metrics{Step: 4, Loss: 0.1, TokensPerSec: 9}, 20*time.Second); strings.Contains(line, "eta") {
		t.Errorf("the last step still shows an ETA: %q", line)
	}
}
