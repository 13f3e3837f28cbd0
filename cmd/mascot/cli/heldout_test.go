package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
)

// TestResultsShowHeldout runs candidates (a loopback server whose even
// choices are sentences and odd ones word fragments), the markers judge
// as a plugin process, pairs, a reward model, speaker GRPO, SFT and DPO
// on a tiny model pretrained here; `results show` then gives each training stage's
// held-out evaluation, in text under the names --json uses and in JSON
// under the stage, with the same values as run_summary.json.
func TestResultsShowHeldout(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Reply: func(r fakevllm.Request) (string, bool) {
		if r.Choice%2 == 0 {
			return "that sounds heavy, tell me more about your week.", true
		}
		return "t s t y k t", true
	}})
	dir := t.TempDir()
	spec := testspec.Write(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/heldout"
datasets: es: {name: "esconv", path: "`+testspec.ESConv+`", limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["`+srv.URL()+`"], model: "Qwen/Qwen3-8B"}
judges: markers: plugin: "markers"
rewards: persona: {kind: "reward-model", stage: "rm"}
stages: {
	pre: {kind: "pretrain", text: "embed:demo/data/pretrain.txt", max_steps: 10, batch_size: 4, max_length: 32,
		model: {hidden_size: 32, intermediate_size: 64, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 8}}
	cand: {kind: "candidates", dataset: "es", roster: "support", k: 4}
	jc: {kind: "judge", items: "cand", judges: ["markers"]}
	prs: {kind: "pairs", judged: "jc"}
	rm: {kind: "train-reward-model", pairs: "prs", base_stage: "pre", max_steps: 6, batch_size: 4, lr: 1e-2,
		max_prompt_length: 48, max_length: 128, heldout_fraction: 0.25}
	pol: {kind: "train-grpo", policy: "speaker", prompts: "cand", rewards: ["persona"], base_stage: "pre",
		num_generations: 2, max_steps: 2, batch_size: 2, max_completion_length: 8, max_length: 56,
		heldout_fraction: 0.25, lora: {r: 8, alpha: 16}, lr: 1e-2}
	sft: {kind: "train-sft", dataset: "es", base_stage: "pre", max_steps: 2, batch_size: 4, max_length: 96,
		lora: {r: 8, alpha: 16}, lr: 1e-2}
	dpo: {kind: "train-dpo", pairs: "prs", base_stage: "pre", max_steps: 2, batch_size: 4, max_length: 2048,
		lora: {r: 8, alpha: 16}, lr: 1e-2}
}
`)
	db, runs := filepath.Join(dir, "m.db"), filepath.Join(dir, "runs")
	mascot := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Run(context.Background(), append(args, "--db", db), &out, &errb); code != 0 {
			t.Fatalf("mascot %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return out.String()
	}
	mascot("run", spec, "--runs-dir", runs)

	// The keys users read in `results show --json`, spelled out here rather
	// than decoded into results.Heldout, so that renaming one fails this test.
	type heldout struct {
		Accuracy         *float64  `json:"accuracy"`
		Loss             *float64  `json:"loss"`
		Pairs            int       `json:"pairs"`
		AccuracyBefore   *float64  `json:"accuracy_before"`
		LossBefore       *float64  `json:"loss_before"`
		Perplexity       *float64  `json:"perplexity"`
		PerplexityBefore *float64  `json:"perplexity_before"`
		Examples         int       `json:"examples"`
		Tokens           int       `json:"tokens"`
		RewardBefore     *float64  `json:"reward_before"`
		RewardAfter      *float64  `json:"reward_after"`
		RewardDeltaCI    []float64 `json:"reward_delta_ci"`
		Prompts          int       `json:"prompts"`
		Epochs           []struct {
			Accuracy float64 `json:"accuracy"`
		} `json:"epochs"`
	}
	type stage struct {
		Key     string   `json:"key"`
		Heldout *heldout `json:"heldout"`
	}
	var detail struct {
		Run    struct{ ID string }
		Stages []stage `json:"stages"`
	}
	if err := json.Unmarshal([]byte(mascot("results", "show", "latest", "--json")), &detail); err != nil {
		t.Fatal(err)
	}
	by := map[string]*heldout{}
	for _, s := range detail.Stages {
		by[s.Key] = s.Heldout
	}
	rm, pol := by["rm"], by["pol"]
	// Nine queries (3 contexts x 3 agents) of 4 candidates: a quarter are
	// held out with their pairs.
	if rm == nil || rm.Accuracy == nil || rm.Loss == nil || rm.Pairs == 0 || len(rm.Epochs) == 0 ||
		*rm.Accuracy < 0 || *rm.Accuracy > 1 || rm.Epochs[len(rm.Epochs)-1].Accuracy != *rm.Accuracy {
		t.Fatalf("results show --json: rm held-out %+v", rm)
	}
	if pol == nil || pol.RewardBefore == nil || pol.RewardAfter == nil || len(pol.RewardDeltaCI) != 2 || pol.Prompts < 2 ||
		pol.RewardDeltaCI[0] > pol.RewardDeltaCI[1] {
		t.Fatalf("results show --json: pol held-out %+v", pol)
	}
	// pretrain and train-sft: a language model's loss per token and
	// perplexity before and after; train-dpo: preference accuracy and
	// loss before and after, the untrained adapter being the reference.
	for _, k := range []string{"pre", "sft"} {
		h := by[k]
		if h == nil || h.LossBefore == nil || h.Loss == nil || h.Perplexity == nil || h.PerplexityBefore == nil ||
			h.Examples == 0 || h.Tokens == 0 || h.Accuracy != nil || math.Abs(*h.Perplexity-math.Exp(*h.Loss)) > 1e-9 {
			t.Fatalf("results show --json: %s held-out %+v", k, h)
		}
	}
	if dpo := by["dpo"]; dpo == nil || dpo.AccuracyBefore == nil || *dpo.AccuracyBefore != 0 || dpo.Accuracy == nil ||
		dpo.LossBefore == nil || math.Abs(*dpo.LossBefore-math.Ln2) > 1e-9 || dpo.Loss == nil || dpo.Pairs == 0 {
		t.Fatalf("results show --json: dpo held-out %+v", dpo)
	}
	for _, k := range []string{"cand", "jc", "prs"} {
		if by[k] != nil {
			t.Errorf("stage %s, not a training stage, shows a held-out evaluation %+v", k, by[k])
		}
	}

	text := mascot("results", "show", "latest")
	t.Logf("results show:\n%s", text)
	for _, want := range []string{"held-out evaluation:", "heldout.accuracy", "heldout.loss", "per epoch (accuracy/loss)",
		"heldout.reward_before", "heldout.reward_after", "heldout.reward_delta_ci",
		"heldout.loss_before", "heldout.perplexity_before", "heldout.perplexity", "heldout.accuracy_before"} {
		if !strings.Contains(text, want) {
			t.Errorf("results show lacks %q:\n%s", want, text)
		}
	}

	// run_summary.json carries the same figures under each stage.
	b, err := os.ReadFile(filepath.Join(runs, detail.Run.ID, "run_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Stages []stage `json:"stages"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, s := range sum.Stages {
		want := by[s.Key]
		switch {
		case (want == nil) != (s.Heldout == nil):
			t.Errorf("run_summary.json stage %s held-out %+v, results show %+v", s.Key, s.Heldout, want)
		case want != nil && s.Key == "rm" && *s.Heldout.Accuracy != *want.Accuracy:
			t.Errorf("run_summary.json rm accuracy %v, results show %v", *s.Heldout.Accuracy, *want.Accuracy)
		case want != nil && s.Key == "pol" && s.Heldout.RewardDeltaCI[0] != want.RewardDeltaCI[0]:
			t.Errorf("run_summary.json pol CI %v, results show %v", s.Heldout.RewardDeltaCI, want.RewardDeltaCI)
		case want != nil && (s.Key == "pre" || s.Key == "sft" || s.Key == "dpo") &&
			(*s.Heldout.LossBefore != *want.LossBefore || *s.Heldout.Loss != *want.Loss):
			t.Errorf("run_summary.json %s held-out %+v, results show %+v", s.Key, s.Heldout, want)
		}
	}
}
