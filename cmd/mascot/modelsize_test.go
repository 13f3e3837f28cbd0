package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// testPlugins serves built-in plugins by re-executing the test binary
// (TestMain answers `plugin serve NAME`).
type testPlugins struct{}

func (testPlugins) Command(name string) []string {
	exe, _ := os.Executable()
	return []string{exe, "plugin", "serve", name}
}

// fakeTrainer stands for a training stage that needs real Qwen3 weights:
// it writes an adapter directory whose adapter_config.json names the
// stage's base_model, as the real trainer's does.
type fakeTrainer struct {
	env  *runner.Env
	st   schema.Stage
	base string
}

func (f fakeTrainer) Units(context.Context) ([]runner.Unit, error) {
	return []runner.Unit{{Key: "train", Inputs: map[string]string{"base": f.base}}}, nil
}

func (f fakeTrainer) Run(_ context.Context, u runner.Unit) (runner.Commit, error) {
	dir := filepath.Join(f.env.RunDir, f.st.Key+"-"+u.Fingerprint[:12])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cfg, _ := json.Marshal(map[string]any{"base_model_name_or_path": f.base, "peft_type": "LORA", "r": 8})
	if err := os.WriteFile(filepath.Join(dir, "adapter_config.json"), cfg, 0o644); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(u.Fingerprint))
	kind := "adapter"
	if f.st.Kind == "train-reward-model" {
		kind = "model"
	}
	return func(tx *results.Tx) error {
		_, err := tx.InsertArtifact(results.Artifact{Kind: kind, Path: dir, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(cfg))})
		return err
	}, nil
}

func fakeTrainers() *runner.Registry {
	fake := func(env *runner.Env, st schema.Stage) (runner.Stage, error) {
		var raw struct {
			BaseModel string `json:"base_model"`
		}
		_ = json.Unmarshal(st.Raw, &raw)
		return fakeTrainer{env: env, st: st, base: raw.BaseModel}, nil
	}
	return runner.Default.WithStage("train-grpo", "fake", fake).WithStage("train-reward-model", "fake", fake)
}

// TestModelSizeServesEveryAdapterOnItsOwnBase runs the whole paper/model-size
// sweep (nine variants, Director and Speaker sizes as two axes) against
// one fake vLLM per policy size, each refusing adapters of another base,
// with the trainers replaced by fakes that write real adapter configs: no
// adapter is ever loaded on a base model other than its own, each size's
// server gets its role's adapters, and each variant trains per size.
func TestModelSizeServesEveryAdapterOnItsOwnBase(t *testing.T) {
	sizes := []string{"Qwen/Qwen3-0.6B", "Qwen/Qwen3-1.7B", "Qwen/Qwen3-8B"}
	tags := map[string]string{"Qwen/Qwen3-0.6B": "vllm_0_6b", "Qwen/Qwen3-1.7B": "vllm_1_7b", "Qwen/Qwen3-8B": "vllm_8b"}
	servers := map[string]*fakevllm.Server{}
	judge := fakevllm.Start(t, fakevllm.Options{Model: "google/gemma-3-27b-it"})
	opts := schema.Options{Tags: []string{"judge=" + judge.URL(), "data=" + edSplits(t)},
		Sets: []string{"datasets.train.limit=2", "datasets.test.limit=2", "stages.candidates.k=2",
			"stages.independent.turns=2", "stages.branching.turns=2", "stages.branching.branch_k=2", "stages.eval.turns=2"}}
	for _, m := range sizes {
		servers[m] = fakevllm.Start(t, fakevllm.Options{Model: m, CheckAdapterBase: true})
		opts.Tags = append(opts.Tags, tags[m]+"="+servers[m].URL())
	}
	dir := t.TempDir()
	store, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum, err := runner.Sweep(context.Background(), runner.SweepOptions{Arg: "paper/model-size", Load: opts,
		Run: runner.Options{Store: store, RunsDir: filepath.Join(dir, "runs"), Registry: fakeTrainers(),
			Services: runner.Services{Plugins: testPlugins{}}}})
	if err != nil {
		var b bytes.Buffer
		if sum != nil {
			runner.PrintSweep(&b, sum)
		}
		t.Fatalf("sweep: %v\n%s", err, b.String())
	}
	if len(sum.Children) != 9 {
		t.Fatalf("%d variants, want 9 (3 director sizes x 3 speaker sizes)", len(sum.Children))
	}
	loaded := 0
	for _, m := range sizes {
		adapters := servers[m].Adapters()
		if len(adapters) == 0 {
			t.Errorf("the %s server loaded no adapter", m)
		}
		for name, path := range adapters {
			b, err := os.ReadFile(filepath.Join(path, "adapter_config.json"))
			if err != nil {
				t.Fatal(err)
			}
			var cfg struct {
				Base string `json:"base_model_name_or_path"`
			}
			if err := json.Unmarshal(b, &cfg); err != nil || cfg.Base != m {
				t.Errorf("the %s server serves adapter %s trained on %q", m, name, cfg.Base)
			}
			loaded++
		}
	}
	// Per-size training: three speaker adapters (one per speaker size,
	// shared by the director sizes), nine director adapters.
	count := func(stage string) int {
		var n int
		if err := store.Reader().QueryRow(`SELECT COUNT(DISTINCT fingerprint) FROM units WHERE stage_key = ? AND state = 'done'`, stage).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if s, d := count("speaker_grpo"), count("director_grpo"); s != 3 || d != 9 {
		t.Errorf("%d speaker and %d director trainings, want 3 and 9", s, d)
	}
	if !strings.Contains(servers["Qwen/Qwen3-0.6B"].URL(), "127.0.0.1") || loaded < 12 {
		t.Errorf("%d adapters loaded across the servers, want at least 12", loaded)
	}
}

// edSplits writes the Empathetic Dialogues sample as train.csv and
// test.csv sharing no conversation, as the baselines test does.
func edSplits(t *testing.T) string {
	t.Helper()
	csv, err := os.ReadFile("../../runner/datasets/testdata/ed_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	for f, b := range map[string][]byte{"train.csv": bytes.ReplaceAll(csv, []byte("hit:"), []byte("trainhit:")), "test.csv": csv} {
		if err := os.WriteFile(filepath.Join(data, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data
}
