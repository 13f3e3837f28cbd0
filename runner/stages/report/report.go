// Package report is the `report` stage kind: once its inputs are done it
// prints the paper-style tables (per system x split x criterion mean ± std
// with bootstrap CIs, Overall, metrics) of the current run and writes them
// beside the run as report.md and report.json. The tables cover only what
// its input stages' units recorded (rep.Options.Units), so training-time
// judgments of the same run stay out of the evaluation numbers.
//
// Layer: runner/stages.
package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"mascot.dev/mascot/results"
	rep "mascot.dev/mascot/results/report"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// Config is #ReportStage.
type Config struct {
	Inputs   []string `json:"inputs"`
	Format   string   `json:"format"`
	Baseline string   `json:"baseline,omitempty"`
}

type stage struct {
	env *runner.Env
	key string
	cfg Config
}

// New builds the stage.
func New(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &stage{env: env, key: st.Key}
	return s, st.Decode(&s.cfg)
}

// Units is one unit whose inputs are every input stage's unit fingerprints,
// so the report is remade whenever what it reads changed.
func (s *stage) Units(ctx context.Context) ([]runner.Unit, error) {
	in := map[string][]string{}
	for _, k := range s.cfg.Inputs {
		o, err := s.env.Output(k)
		if err != nil {
			return nil, err
		}
		in[k] = o.Units
	}
	return []runner.Unit{{Key: "report", Inputs: in}}, nil
}

// Run records nothing but the unit; the tables are printed by Finish from
// whatever the run's database holds, cached units included.
func (s *stage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	return func(tx *results.Tx) error { return nil }, nil
}

// scope is the union of the input stages' done unit fingerprints: the
// report covers what those judge and metrics stages recorded, not the
// judgments a training stage made to build preference pairs.
// Without inputs the report covers the whole run.
func (s *stage) scope() ([]string, error) {
	if len(s.cfg.Inputs) == 0 {
		return nil, nil
	}
	seen := map[string]bool{}
	units := []string{}
	for _, k := range s.cfg.Inputs {
		o, err := s.env.Output(k)
		if err != nil {
			return nil, fmt.Errorf("reading the units of input %s: %w", k, err)
		}
		for _, u := range o.Units {
			if !seen[u] {
				seen[u] = true
				units = append(units, u)
			}
		}
	}
	return units, nil
}

// Finish prints the tables of its inputs' results and writes them next to
// the run.
func (s *stage) Finish(ctx context.Context) error {
	units, err := s.scope()
	if err != nil {
		return err
	}
	r, err := rep.Build(ctx, s.env.Store, []string{s.env.RunID}, rep.Options{Units: units})
	if err != nil {
		return fmt.Errorf("building report: %w", err)
	}
	fmt.Fprintln(s.env.Out)
	if err := rep.Render(s.env.Out, r, s.cfg.Format); err != nil {
		return err
	}
	if err := s.printTraining(ctx); err != nil {
		return err
	}
	for _, f := range []struct{ name, format string }{{"report.md", "markdown"}, {"report.json", "json"}} {
		fh, err := os.Create(filepath.Join(s.env.RunDir, f.name))
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.name, err)
		}
		err = rep.Render(fh, r, f.format)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.name, err)
		}
	}
	return nil
}

// printTraining prints the held-out evaluation of the run's training
// stages: each reward model's accuracy and loss on held-out pairs, each
// DPO policy's accuracy and loss before and after, each language model's
// (pretrain, train-sft) loss per token and perplexity before and after,
// each GRPO stage's mean reward on held-out prompts before and after training
// with the 95% bootstrap interval of the paired difference.
func (s *stage) printTraining(ctx context.Context) error {
	held, err := s.env.Store.Heldout(ctx, s.env.RunID)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(held))
	for k, h := range held {
		if h.Accuracy != nil || h.Loss != nil || (h.RewardBefore != nil && h.RewardAfter != nil) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	fmt.Fprintln(s.env.Out, "\nHeld-out evaluation of the trained models")
	for _, k := range keys {
		h := held[k]
		switch {
		case h.AccuracyBefore != nil: // a DPO policy
			fmt.Fprintf(s.env.Out, "  %-20s accuracy %.3f -> %.3f  loss %.4f -> %.4f  (%d held-out pairs)\n", k,
				*h.AccuracyBefore, deref(h.Accuracy), deref(h.LossBefore), deref(h.Loss), h.Pairs)
		case h.Accuracy != nil:
			fmt.Fprintf(s.env.Out, "  %-20s accuracy %.3f  loss %.4f  (%d held-out pairs)\n", k, *h.Accuracy, deref(h.Loss), h.Pairs)
		case h.Loss != nil: // a language model: loss per token
			fmt.Fprintf(s.env.Out, "  %-20s loss %.4f -> %.4f  perplexity %.2f -> %.2f  (%d held-out examples, %d tokens)\n", k,
				deref(h.LossBefore), *h.Loss, deref(h.PerplexityBefore), deref(h.Perplexity), h.Examples, h.Tokens)
		}
		if h.RewardBefore != nil && h.RewardAfter != nil {
			fmt.Fprintf(s.env.Out, "  %-20s reward %8.4f -> %8.4f  (%+.4f", k, *h.RewardBefore, *h.RewardAfter, *h.RewardAfter-*h.RewardBefore)
			if len(h.RewardDeltaCI) == 2 {
				fmt.Fprintf(s.env.Out, ", 95%% CI [%+.4f, %+.4f]", h.RewardDeltaCI[0], h.RewardDeltaCI[1])
			}
			fmt.Fprintf(s.env.Out, ", %d held-out prompts)\n", h.Prompts)
		}
	}
	return nil
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
