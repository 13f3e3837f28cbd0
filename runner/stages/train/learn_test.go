package train_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/qwen3"
)

// fakeCandidates replaces the candidates kind: one unit inserting chat
// prompts with a "good" and a "bad" response each, and a pair per prompt
// (good chosen), so the training stages read realistic rows.
func fakeCandidates() runner.Kind { return fakeStoring("candidates", "#Candidates") }

// fakeStoring is a kind whose one unit stores fakeCand's rows.
func fakeStoring(name, def string) runner.Kind {
	return runner.Kind{Name: name, Version: "test", Definition: def,
		New: func(env *runner.Env, st schema.Stage) (runner.Stage, error) { return fakeCand{}, nil }}
}

// noopKind stands in for a stage of the graph whose output the test does
// not read: it has no units.
func noopKind(name, def string) runner.Kind {
	return runner.Kind{Name: name, Version: "test", Definition: def,
		New: func(env *runner.Env, st schema.Stage) (runner.Stage, error) { return noop{}, nil }}
}

type noop struct{}

func (noop) Units(ctx context.Context) ([]runner.Unit, error) { return nil, nil }

func (noop) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) { return nil, nil }

type fakeCand struct{}

var topics = []string{"my job", "my exam", "my friend", "my sister", "the move", "my team", "the rent", "my health"}

func (fakeCand) Units(ctx context.Context) ([]runner.Unit, error) {
	return []runner.Unit{{Key: "all", Inputs: topics}}, nil
}

func (fakeCand) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	return func(tx *results.Tx) error {
		for i, tp := range topics {
			p, _ := json.Marshal([]map[string]string{{"role": "user", "content": "i worry about " + tp + "."}})
			ids, err := tx.InsertCandidates([]results.Candidate{
				{ContextID: fmt.Sprint(i), Persona: "a", SampleIdx: 2 * i, Prompt: string(p), Text: "i am fine. thank you."},
				{ContextID: fmt.Sprint(i), Persona: "a", SampleIdx: 2*i + 1, Prompt: string(p), Text: "zzq xx qqz zz"},
			})
			if err != nil {
				return err
			}
			if _, err := tx.InsertPairs([]results.Pair{{ContextID: fmt.Sprint(i), Persona: "a", ChosenID: ids[0],
				RejectedID: ids[1], ChosenScore: 5, RejectedScore: 1, Margin: 4}}); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

const candStage = `cand: {kind: "candidates", dataset: "es", roster: "support", endpoint: "speaker", k: 2}
`

func TestRewardModelOnStoredPairs(t *testing.T) {
	// The pairs stage stands in for candidates -> judge -> pairs: it stores
	// the candidates and their pairs itself.
	l := writeSpec(t, `judges: rubric: {plugin: "rubric", endpoint: "speaker"}
stages: `+candStage+`stages: jdg: {kind: "judge", items: "cand", judges: ["rubric"]}
stages: prs: {kind: "pairs", judged: "jdg"}
stages: rm: {kind: "train-reward-model", pairs: "prs", base_stage: "pre", max_steps: 30, batch_size: 4, max_length: 96, lr: 1e-2}
`)
	h := newHarness(t, l, runner.Default.With(noopKind("candidates", "#Candidates")).With(noopKind("judge", "#JudgeStage")).
		With(fakeStoring("pairs", "#Pairs")))
	if s := h.run(); s.Ran != 3 {
		t.Fatalf("ran %d units, want 3 (pretrain, candidates, reward model)", s.Ran)
	}
	a := h.artifact("reward-model")
	m, err := qwen3.Load(a.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Config.IsSequenceClassification() {
		t.Fatalf("reward model architectures %v", m.Config.Architectures)
	}
	var meta struct {
		Eval map[string]float64 `json:"eval"`
	}
	if err := json.Unmarshal(a.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Eval["accuracy"] < 0.99 {
		t.Fatalf("reward model accuracy on its pairs %v, want 1 (eval %v)", meta.Eval["accuracy"], meta.Eval)
	}
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'rm'`); n != 30 {
		t.Fatalf("%d rm steps, want 30", n)
	}
	if s := h.run(); s.Ran != 0 {
		t.Fatalf("rerun ran %d units, want 0", s.Ran)
	}
}

func TestGRPORaisesHeldoutReward(t *testing.T) {
	l := writeSpec(t, `rewards: fmt: {kind: "conciseness", options: target_words: 1}
stages: `+candStage+`stages: pol: {kind: "train-grpo", policy: "speaker", prompts: "cand", rewards: ["fmt"], base_stage: "pre",
	num_generations: 8, max_steps: 30, batch_size: 4, max_completion_length: 16, lr: 2e-2, heldout_fraction: 0.25,
	lora: {r: 8, alpha: 16, dropout: 0}}
`)
	h := newHarness(t, l, runner.Default.With(fakeCandidates()))
	h.run()
	var before, after float64
	q := `SELECT value FROM metrics WHERE system = 'pol' AND name = ?`
	if err := h.store.Reader().QueryRow(q, "heldout_reward_before").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := h.store.Reader().QueryRow(q, "heldout_reward_after").Scan(&after); err != nil {
		t.Fatal(err)
	}
	t.Logf("held-out conciseness reward %.3f → %.3f; train rewards %.2f", before, after, h.rewards("pol"))
	if !(after > before) {
		t.Fatalf("held-out reward did not rise: %.3f → %.3f", before, after)
	}
	a := h.artifact("adapter")
	for _, f := range []string{"adapter_config.json", "adapter_model.safetensors"} {
		if _, err := os.Stat(filepath.Join(a.Path, f)); err != nil {
			t.Fatalf("adapter lacks %s: %v", f, err)
		}
	}
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'pol' AND reward IS NOT NULL`); n == 0 {
		t.Fatal("no GRPO step recorded a reward")
	}
	if s := h.run(); s.Ran != 0 {
		t.Fatalf("rerun ran %d units, want 0", s.Ran)
	}
}

func (h *harness) rewards(stage string) []float64 {
	rows, err := h.store.Reader().Query(`SELECT COALESCE(reward, 0) FROM training_steps WHERE stage_key = ? ORDER BY step`, stage)
	if err != nil {
		h.t.Fatal(err)
	}
	defer rows.Close()
	var out []float64
	for rows.Next() {
		var v float64
		rows.Scan(&v)
		out = append(out, v)
	}
	return out
}
