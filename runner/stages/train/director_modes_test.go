package train_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/runner"
)

// TestDirectorGRPOResumesToTheSameAdapter: the Director's rollouts are
// seeded from the run seed, the unit fingerprint and their place in the
// run, so a run interrupted in director_grpo and rerun resumes from its
// checkpoint (replaying what its requests fetched from the cache) and
// trains the very adapter an uninterrupted run trains.
func TestDirectorGRPOResumesToTheSameAdapter(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 3})
	l := directorSpec(t, srv.URL(), "num_generations: 2, max_steps: 4, batch_size: 1, horizon: 2, checkpoint_every: 1, heldout_fraction: 0")
	whole := newHarness(t, l, runner.Default.WithStage("judge", "test", fakeJudge))
	whole.run()
	want := whole.artifact("adapter")

	h := newHarness(t, l, runner.Default.WithStage("judge", "test", fakeJudge))
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
	h := newHarness(t, l, runner.Default.WithStage("judge", "test", fakeJudge))
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
