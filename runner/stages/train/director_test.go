package train_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/pairs"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/runner/stages/train"
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
	l, err := schema.Load(testspec.Write(t, src), schema.Options{})
	if err != nil {
		t.Fatalf("loading spec: %v", err)
	}
	return l
}

// fakeJudge replaces the judge kind: one unit scoring every episode of
// the judged stage on one collective criterion, 1–5 from a hash of its
// transcript, so group pairs exist.
func fakeJudge() runner.Kind {
	return runner.Kind{Name: "judge", Version: "test", Definition: "#JudgeStage",
		New: func(env *runner.Env, st schema.Stage) (runner.Stage, error) {
			var c struct {
				Items string `json:"items"`
			}
			err := st.Decode(&c)
			return judgeEpisodes{env: env, items: c.Items}, err
		}}
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

// TestDirectorGRPORollsOutWholeTrajectories: every GRPO group of the
// Director is G trajectories played by the Speaker (and the simulated
// user) through the episodes engine, horizon rounds each: the Speaker
// turns generated inside the stage are G × states × horizon, each one a
// Speaker request to the endpoint, and the Director's draws are counted
// as its requests.
func TestDirectorGRPORollsOutWholeTrajectories(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 1})
	const g, steps, batch, horizon = 2, 3, 2, 1
	l := directorSpec(t, srv.URL(), fmt.Sprintf("num_generations: %d, max_steps: %d, batch_size: %d, horizon: %d, heldout_fraction: 0",
		g, steps, batch, horizon))
	h := newHarness(t, l, runner.Default.With(fakeJudge()))
	h.run()
	want := int64(g * steps * batch * horizon)
	got := h.counter("dg", "rollout_speaker_turns")
	t.Logf("director_grpo: %d trajectories, %d speaker turns, %d user turns, %d director draws, %d speaker requests",
		h.counter("dg", "rollout_trajectories"), got, h.counter("dg", "rollout_user_turns"),
		h.counter("dg", "llm.director.requests"), h.counter("dg", "llm.speaker.requests"))
	if got == 0 || got != want {
		t.Fatalf("director_grpo generated %d Speaker turns, want G × states × horizon = %d", got, want)
	}
	if n := h.counter("dg", "llm.speaker.requests"); n != want {
		t.Errorf("director_grpo sent %d Speaker requests, want %d", n, want)
	}
	if n := h.counter("dg", "rollout_trajectories"); n != int64(g*steps*batch) {
		t.Errorf("%d trajectories, want %d", n, g*steps*batch)
	}
	// One Director request per state (n = G in one draw), counted with no
	// HTTP attempt: the policy samples in this process.
	if n, a := h.counter("dg", "llm.director.requests"), h.counter("dg", "llm.director.attempts"); n != int64(steps*batch) || a != 0 {
		t.Errorf("%d Director requests with %d attempts, want %d with 0", n, a, steps*batch)
	}
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'dg' AND reward IS NOT NULL`); n != steps {
		t.Errorf("%d rewarded GRPO steps, want %d", n, steps)
	}
	// Drawn under the directive schema, as the built-in engine would
	// draw them, the tiny policy's directives all parse.
	if n, f := h.counter("dg", "num_directive_parse_failures"), h.counter("dg", "num_random_agent_fallbacks"); n != 0 || f != 0 {
		t.Errorf("%d directives did not parse and %d fell back to a random agent, want none", n, f)
	}
	// The directive tokens the policy drew get gradient.
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'dg' AND grad_norm > 0`); n == 0 {
		t.Error("no GRPO step of the Director had a gradient")
	}
	if s := h.run(); s.Ran != 0 {
		t.Fatalf("rerun ran %d units, want 0", s.Ran)
	}
}

// TestDirectorRewardUsesTheGroupPairTemplate: what the Director's GRPO
// rewards of a trajectory (prompt and text) is exactly what the group
// reward model was trained on for a conversation with the same turns: for
// every stored group block, the reward input of its episode's turns is
// one side of a training pair, with the pair's prompt.
func TestDirectorRewardUsesTheGroupPairTemplate(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 2})
	l := directorSpec(t, srv.URL(), "num_generations: 2, max_steps: 1, batch_size: 1, heldout_fraction: 0.5")
	h := newHarness(t, l, runner.Default.With(fakeJudge()))
	h.run()
	ctx := context.Background()
	var units []string
	rows, err := h.store.Reader().Query(`SELECT fingerprint FROM units WHERE stage_key = 'gp' AND state = 'done'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var fp string
		rows.Scan(&fp)
		units = append(units, fp)
	}
	rows.Close()
	pairs, err := train.ReadPairs(ctx, h.store, units)
	if err != nil || len(pairs) == 0 {
		t.Fatalf("%d training pairs (%v)", len(pairs), err)
	}
	trained := map[[2]string]bool{}
	for _, p := range pairs {
		trained[[2]string{p.Prompt, p.Chosen}], trained[[2]string{p.Prompt, p.Rejected}] = true, true
	}
	rows, err = h.store.Reader().Query(`SELECT meta_json FROM candidates WHERE kind = 'block'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var meta string
		var m struct {
			EpisodeID int64 `json:"episode_id"`
		}
		if err := rows.Scan(&meta); err != nil || json.Unmarshal([]byte(meta), &m) != nil {
			t.Fatalf("block meta %q: %v", meta, err)
		}
		ep, err := h.store.GetEpisode(ctx, m.EpisodeID)
		if err != nil {
			t.Fatal(err)
		}
		prompt, text, err := train.RewardInputOfStored(ep.Turns)
		if err != nil {
			t.Fatal(err)
		}
		if !trained[[2]string{prompt, text}] {
			t.Fatalf("the Director's reward scores episode %d as (%q, %q), which no training pair holds", m.EpisodeID, prompt, text)
		}
		n++
	}
	if n == 0 {
		t.Fatal("the pairs stage stored no group block")
	}
	// The held-out reward before and after was measured on trajectories.
	var before, after float64
	q := `SELECT value FROM metrics WHERE system = 'dg' AND name = ?`
	if err := h.store.Reader().QueryRow(q, "heldout_reward_before").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := h.store.Reader().QueryRow(q, "heldout_reward_after").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if h.counter("dg", "heldout_speaker_turns") == 0 {
		t.Fatal("the held-out reward was measured without rolling out a Speaker turn")
	}
	t.Logf("held-out group reward %.4f → %.4f over %d held-out trajectories", before, after, h.counter("dg", "heldout_trajectories"))
}

// TestDirectorGRPOResumesToTheSameAdapter: the Director's rollouts are
// seeded from the run seed, the unit fingerprint and their place in the
// run, so a run interrupted in director_grpo and rerun resumes from its
// checkpoint (replaying what its requests fetched from the cache) and
// trains the very adapter an uninterrupted run trains.
func TestDirectorGRPOResumesToTheSameAdapter(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 3})
	l := directorSpec(t, srv.URL(), "num_generations: 2, max_steps: 4, batch_size: 1, horizon: 2, checkpoint_every: 1, heldout_fraction: 0")
	whole := newHarness(t, l, runner.Default.With(fakeJudge()))
	whole.run()
	want := whole.artifact("adapter")

	h := newHarness(t, l, runner.Default.With(fakeJudge()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { // interrupt once two of the four steps are recorded
		defer close(done)
		for ctx.Err() == nil {
			var n int
			if h.store.Reader().QueryRow(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'dg'`).Scan(&n) == nil && n >= 2 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := runner.Execute(ctx, h.opts)
	cancel()
	<-done
	if err == nil {
		t.Fatal("the interrupted run finished")
	}
	h.run()
	got := h.artifact("adapter")
	var meta struct {
		ResumedFrom int `json:"resumed_from"`
	}
	if err := json.Unmarshal(got.Meta, &meta); err != nil || meta.ResumedFrom < 2 {
		t.Errorf("the rerun resumed from step %d (%v), want 2 or later", meta.ResumedFrom, err)
	}
	if got.SHA256 != want.SHA256 {
		t.Fatalf("the resumed Director adapter %s differs from the uninterrupted one %s", got.SHA256, want.SHA256)
	}
	t.Logf("resumed from step %d; speaker replies replayed from the cache: %d", meta.ResumedFrom,
		h.counter("dg", "llm.speaker.reused")+h.counter("dg", "llm.speaker.cache_hits"))
}

// TestDirectorGRPOEndpointRollouts: with rollouts "endpoint" the
// Director's directives come from its endpoint, which gets the current
// adapter hot-loaded once per generation (PEFT files the stage wrote)
// and serves each generation's draws under that adapter's alias; the
// trainer learns from the directives it reads back, and the stage
// unloads the last adapter when it is done.
func TestDirectorGRPOEndpointRollouts(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 4, Record: true})
	const g, steps = 2, 2
	l := directorSpec(t, srv.URL(), fmt.Sprintf(`rollouts: "endpoint", num_generations: %d, max_steps: %d, batch_size: 1, horizon: 1, heldout_fraction: 0`, g, steps))
	h := newHarness(t, l, runner.Default.With(fakeJudge()))
	h.run()
	loaded := map[string]bool{}
	for _, r := range srv.Requests() {
		if r.Path != "/v1/load_lora_adapter" {
			continue
		}
		var b struct {
			Name string `json:"lora_name"`
			Path string `json:"lora_path"`
		}
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(b.Path, "adapter_config.json")); err != nil {
			t.Errorf("adapter %s loaded from %s: %v", b.Name, b.Path, err)
		}
		loaded[b.Name] = true
	}
	served := map[string]int{}
	for _, r := range srv.Requests() {
		var b struct {
			Model          string `json:"model"`
			ResponseFormat struct {
				JSONSchema struct {
					Name string `json:"name"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if r.Path == "/v1/chat/completions" && json.Unmarshal(r.Body, &b) == nil && b.ResponseFormat.JSONSchema.Name == "directive" && loaded[b.Model] {
			served[b.Model]++
		}
	}
	t.Logf("adapters loaded %v; Director requests per adapter %v", loaded, served)
	if len(loaded) != steps || len(served) != steps {
		t.Fatalf("adapters loaded %v, Director requests per adapter %v; want one adapter per generation (%d)", loaded, served, steps)
	}
	if n := h.counter("dg", "llm.director.attempts"); n < steps {
		t.Errorf("%d Director attempts over HTTP, want at least %d", n, steps)
	}
	if n := h.counter("dg", "rollout_speaker_turns"); n != g*steps {
		t.Errorf("%d Speaker turns, want %d", n, g*steps)
	}
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'dg' AND grad_norm > 0`); n == 0 {
		t.Error("no GRPO step of the Director had a gradient")
	}
	if a := srv.Adapters(); len(a) != 0 {
		t.Errorf("the endpoint still serves %v after training", a)
	}
}
