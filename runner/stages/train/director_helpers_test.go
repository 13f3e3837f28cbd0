package train_test

import (
	"context"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/pairs"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/schema"
)

// directorSpec is a stage-2 pipeline on the fake vLLM: independent
// episodes, a fake collective judge, group pairs, the group reward model
// on them, a branching stage and the Director's GRPO reading it (its
// fields in dg).
func directorSpec(t *testing.T, url, dg string) *schema.Loaded {
	t.Helper()
	text := filepath.Join(t.TempDir(), "pretrain.txt")
	if err := os.WriteFile(text, []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	ep := `{urls: ["` + url + `"], model: "Qwen/Qwen3-8B", retries: 1, timeout: "10s"}`
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/director"
seed: 7
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 2}
rosters: support: personas.emotional_support
endpoints: director: ` + ep + `
endpoints: speaker: ` + ep + `
endpoints: user: ` + ep + `
judges: j: {plugin: "rubric", endpoint: "speaker"}
rewards: group: {kind: "reward-model", stage: "grm"}
stages: {
	pre: {kind: "pretrain", text: "` + text + `", max_steps: 20, batch_size: 4, max_length: 32,
		model: {hidden_size: 32, intermediate_size: 64, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 8}}
	indep: {kind: "episodes", mode: "independent", dataset: "es", roster: "support", turns: 2, samples_per_context: 3,
		user_response_probability: 0.5}
	jg: {kind: "judge", items: "indep", level: "collective", judges: ["j"]}
	gp: {kind: "pairs", judged: "jg", margin: 0.1}
	grm: {kind: "train-reward-model", pairs: "gp", base_stage: "pre", max_steps: 2, batch_size: 2, lr: 1e-2}
	br: {kind: "episodes", mode: "branching", dataset: "es", roster: "support", turns: 2, branch_k: 2,
		user_response_probability: 0.5}
	dg: {kind: "train-grpo", policy: "director", prompts: "br", rewards: ["group"], base_stage: "pre",
		max_completion_length: 64, lora: {r: 8, alpha: 16, dropout: 0}, lr: 1e-2, ` + dg + `}
}
`
	l, err := schema.Load(testspec.Write(t, src), runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatalf("loading spec: %v", err)
	}
	return l
}

// fakeJudge replaces the judge kind: one unit scoring every episode of
// the judged stage on one collective criterion, 1–5 from a hash of its
// transcript, so group pairs exist.
func fakeJudge(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	var c struct {
		Items string `json:"items"`
	}
	err := st.Decode(&c)
	return judgeEpisodes{env: env, items: c.Items}, err
}

type judgeEpisodes struct {
	env   *runner.Env
	items string
}

func (j judgeEpisodes) Units(ctx context.Context) ([]runner.Unit, error) {
	out, err := j.env.Output(j.items)
	if err != nil {
		return nil, err
	}
	return []runner.Unit{{Key: "all", Inputs: out.Units, Payload: out.Units}}, nil
}

func (j judgeEpisodes) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	var js []results.Judgment
	for _, fp := range u.Payload.([]string) {
		eps, err := j.env.Store.EpisodesForUnit(ctx, fp)
		if err != nil {
			return nil, err
		}
		for _, ep := range eps {
			h := fnv.New32a()
			h.Write([]byte(stagekit.Transcript(ep.Turns)))
			js = append(js, results.Judgment{Judge: "j", Criterion: "c", Score: float64(1 + h.Sum32()%5), EpisodeID: ep.ID})
		}
	}
	return func(tx *results.Tx) error {
		_, err := tx.InsertJudgments(js)
		return err
	}, nil
}

// counter is a stage's counter in the store (0 when absent).
func (h *harness) counter(stage, name string) int64 {
	h.t.Helper()
	var n int64
	err := h.store.Reader().QueryRow(`SELECT COALESCE(SUM(value), 0) FROM counters WHERE stage_key = ? AND name = ?`, stage, name).Scan(&n)
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}
