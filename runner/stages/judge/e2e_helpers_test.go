package judge_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all" // every built-in stage kind
	_ "mascot.dev/mascot/runner/stages/candidates"
	_ "mascot.dev/mascot/runner/stages/judge"
	_ "mascot.dev/mascot/runner/stages/metrics"
	_ "mascot.dev/mascot/runner/stages/pairs"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/schema"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// mascotBin builds ./cmd/mascot once per test binary; its `plugin serve
// NAME` serves the built-in plugins as separate processes.
func mascotBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "judge-e2e-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "mascot")
		out, err := exec.Command("go", "build", "-o", binPath, "mascot.dev/mascot/cmd/mascot").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build ./cmd/mascot: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type starter struct{ bin string }

func (s starter) Command(name string) []string { return []string{s.bin, "plugin", "serve", name} }

// fakeEpisodes stands in for the episodes kind: one episode per dataset
// sample with fixed turns, so judge and metrics stages have input.
func fakeEpisodes(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	var cfg struct {
		Dataset string `json:"dataset"`
		System  string `json:"system"`
		Mode    string `json:"mode"`
		Samples int    `json:"samples_per_context"`
	}
	if err := st.Decode(&cfg); err != nil {
		return nil, err
	}
	return &episodesStage{env: env, dataset: cfg.Dataset, system: cfg.System, mode: cfg.Mode, samples: max(1, cfg.Samples)}, nil
}

type episodesStage struct {
	env             *runner.Env
	dataset, system string
	mode            string // as the spec says: reports cover "eval" episodes by default
	samples         int
}

func (s *episodesStage) Units(ctx context.Context) ([]runner.Unit, error) {
	samples, err := stagekit.LoadDataset(s.env, s.dataset)
	if err != nil {
		return nil, err
	}
	var us []runner.Unit
	for _, smp := range samples {
		us = append(us, runner.Unit{Key: smp.ID, Inputs: smp.ID, Payload: [2]string{smp.ID, smp.Valence}})
	}
	return us, nil
}

// EpisodeTexts are the fake episodes' agent turns, in order (each marked
// with the stage's system, and with the sample index after the first).
var EpisodeTexts = []string{"i hear you and i am here", "that sounds hard and i am here", "you are not alone in this"}

func (s *episodesStage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	p := u.Payload.([2]string)
	agents := []string{"The Anchor", "The Catalyst", "The Beacon"}
	episode := func(k int) []results.Turn {
		var turns []results.Turn
		for i, txt := range EpisodeTexts {
			if k > 0 {
				txt = fmt.Sprintf("%s (take %d)", txt, k)
			}
			// The system speaks in its own words, so a judge can tell
			// systems apart (the three-way test's judges prefer one).
			txt = fmt.Sprintf("%s [%s]", txt, s.system)
			turns = append(turns, results.Turn{TurnIdx: len(turns), AgentName: agents[i], Response: txt})
			if i == 0 {
				turns = append(turns, results.Turn{TurnIdx: len(turns), TurnType: "user", AgentName: "user", Response: "thanks"})
			}
		}
		return turns
	}
	return func(tx *results.Tx) error {
		for k := 0; k < s.samples; k++ {
			if _, err := tx.InsertEpisode(results.Episode{ConvID: p[0], Idx: k, SampleIdx: k, System: s.system,
				Dataset: "esconv", Valence: p[1], Mode: s.mode, Turns: episode(k)}); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
