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
	_ "mascot.dev/mascot/runner/stages/all" // every built-in stage kind
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
)

// fakeCandidates replaces the candidates kind: one unit inserting chat
// prompts with a "good" and a "bad" response each, and a pair per prompt
// (good chosen), so the training stages read realistic rows.
func fakeCandidates(env *runner.Env, st schema.Stage) (runner.Stage, error) { return fakeCand{}, nil }

// fakeRegistry stands in for candidates -> judge -> pairs: the
// candidates and pairs stages store fakeCand's rows (so training stages
// read pairs from a stage of kind pairs, as validation requires) and the
// judge stage has no units.
func fakeRegistry() *runner.Registry {
	return runner.Default.WithStage("candidates", "test", fakeCandidates).WithStage("pairs", "test", fakeCandidates).
		WithStage("judge", "test", func(*runner.Env, schema.Stage) (runner.Stage, error) { return noUnits{}, nil })
}

type noUnits struct{}

func (noUnits) Units(context.Context) ([]runner.Unit, error) { return nil, nil }
func (noUnits) Run(context.Context, runner.Unit) (runner.Commit, error) {
	return nil, fmt.Errorf("noUnits has no units to run")
}

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

// candStage follows "stages: ": candidates, their judging and pairs (all
// fakes in these tests), plus the judge they name.
const candStage = `{
	cand: {kind: "candidates", dataset: "es", roster: "support", endpoint: "speaker", k: 2}
	jc: {kind: "judge", items: "cand", judges: ["j"]}
	prs: {kind: "pairs", judged: "jc"}
}
judges: j: {plugin: "rubric", endpoint: "speaker"}
`

func TestRewardModelOnStoredPairs(t *testing.T) {
	l := writeSpec(t, `stages: `+candStage+`stages: rm: {kind: "train-reward-model", pairs: "prs", base_stage: "pre", max_steps: 30, batch_size: 4, max_length: 96, lr: 1e-2}
`)
	h := newHarness(t, l, fakeRegistry())
	sum := h.run()
	if sum.Ran != 4 {
		t.Fatalf("ran %d units, want 4 (pretrain, candidates, pairs, reward model; the fake judge has none)", sum.Ran)
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
		Eval           map[string]float64 `json:"eval"`
		TrainPairs     int                `json:"train_pairs"`
		HeldoutPairs   int                `json:"heldout_pairs"`
		HeldoutQueries []string           `json:"heldout_queries"`
	}
	if err := json.Unmarshal(a.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	// Eight queries of one pair each: the default heldout_fraction 0.2
	// holds out two, which the model never trains on.
	if meta.TrainPairs != 6 || meta.HeldoutPairs != 2 || len(meta.HeldoutQueries) != 2 || meta.Eval["pairs"] != 2 {
		t.Fatalf("trained on %d pairs, held out %d of queries %v (eval %v); want 6 and 2 of 2 queries",
			meta.TrainPairs, meta.HeldoutPairs, meta.HeldoutQueries, meta.Eval)
	}
	if meta.Eval["accuracy"] < 0.99 {
		t.Fatalf("reward model accuracy on held-out pairs %v, want 1 (eval %v)", meta.Eval["accuracy"], meta.Eval)
	}
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'rm'`); n != 30 {
		t.Fatalf("%d rm steps, want 30", n)
	}
	// The ledger holds the held-out figures: stage metrics, and the
	// accuracy and loss at the end of every epoch (6 pairs in batches of
	// 4: an epoch is one step, by the floor training_steps.epoch uses).
	held, err := h.store.Heldout(context.Background(), h.runID())
	if err != nil {
		t.Fatal(err)
	}
	hr := held["rm"]
	if hr == nil || hr.Accuracy == nil || *hr.Accuracy != meta.Eval["accuracy"] || hr.Loss == nil || *hr.Loss != meta.Eval["loss"] ||
		hr.Pairs != 2 || len(hr.Epochs) != 30 || hr.Epochs[29].Accuracy != *hr.Accuracy {
		t.Fatalf("held-out record %+v, want accuracy %v, loss %v, 2 pairs and 30 epochs ending there", hr, meta.Eval["accuracy"], meta.Eval["loss"])
	}
	// run_summary.json carries it under the stage (and the pretraining's
	// held-out loss under its own).
	for _, st := range sum.Stages {
		if (st.Key == "rm" || st.Key == "pre") != (st.Heldout != nil) || st.Key == "rm" && *st.Heldout.Accuracy != *hr.Accuracy {
			t.Errorf("run summary stage %s held-out %+v", st.Key, st.Heldout)
		}
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
	h := newHarness(t, l, fakeRegistry())
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
	// The paired difference's 95% interval over the two held-out prompts
	// holds the difference of the means and is stored with it.
	held, err := h.store.Heldout(context.Background(), h.runID())
	if err != nil {
		t.Fatal(err)
	}
	hp := held["pol"]
	if hp == nil || len(hp.RewardDeltaCI) != 2 || hp.Prompts != 2 ||
		!(hp.RewardDeltaCI[0] <= after-before+1e-12 && after-before <= hp.RewardDeltaCI[1]+1e-12) {
		t.Fatalf("held-out record %+v, want 2 prompts and an interval around %.4f", hp, after-before)
	}
	a := h.artifact("adapter")
	for _, f := range []string{"adapter_config.json", "adapter_model.safetensors", lora.MetaFile} {
		st, err := os.Stat(filepath.Join(a.Path, f))
		if err != nil {
			t.Fatalf("adapter lacks %s: %v", f, err)
		}
		if st.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s is %v, want readable by group and others (a vLLM running as another user reads it)", f, st.Mode().Perm())
		}
	}
	// adapter_config.json names the base as AutoPeftModel resolves it (the
	// pretrain stage's model directory); the stage fingerprint is in
	// mascot_adapter.json.
	cfg, err := lora.ReadConfig(filepath.Join(a.Path, lora.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	pre := h.artifact("model")
	if !filepath.IsAbs(cfg.BaseModelNameOrPath) || cfg.BaseModelNameOrPath != mustAbs(t, pre.Path) {
		t.Errorf("base_model_name_or_path %q, want the pretrained model's absolute directory %q", cfg.BaseModelNameOrPath, pre.Path)
	}
	if meta, err := lora.ReadMeta(a.Path); err != nil || meta.Base != "stage:"+pre.SHA256 {
		t.Errorf("%s base %q (%v), want stage:%s", lora.MetaFile, meta.Base, err, pre.SHA256)
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

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestTrainingDefaultsMatchTRL checks the CUE defaults that TRL fixes: the
// reward model's learning rate is RewardConfig's 1e-4, DPO's is
// DPOConfig's 1e-6, GRPO's GRPOConfig's 1e-6 and SFT's SFTConfig's 2e-5.
func TestTrainingDefaultsMatchTRL(t *testing.T) {
	l := writeSpec(t, `stages: `+candStage+`stages: {
	rm: {kind: "train-reward-model", pairs: "prs", base_stage: "pre"}
	dpo: {kind: "train-dpo", pairs: "prs", base_stage: "pre"}
	pol: {kind: "train-grpo", policy: "speaker", prompts: "cand", rewards: ["fmt"], base_stage: "pre"}
	sft: {kind: "train-sft", dataset: "es", base_stage: "pre"}
}
rewards: fmt: {kind: "format"}
`)
	for stage, want := range map[string]float64{"rm": 1e-4, "dpo": 1e-6, "pol": 1e-6, "sft": 2e-5} {
		var c struct {
			LR float64 `json:"lr"`
		}
		if err := l.Experiment.Stages[stage].Decode(&c); err != nil {
			t.Fatal(err)
		}
		if c.LR != want {
			t.Errorf("%s: default lr %g, want TRL's %g", stage, c.LR, want)
		}
	}
}
