package runner_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// BenchmarkCandidatesStage runs a candidates stage (40 contexts x 3
// personas, K=4 single requests: 480 requests) through the real runner
// and store against the fake server (20 ms latency, endpoint concurrency
// 64, so 128 units in flight by default), then
// sends as many requests with a bare go-openai client, 64 at a time, to
// the same server. It reports both rates and their ratio (goal >= 0.9).
func BenchmarkCandidatesStage(b *testing.B) {
	const conc, k, units = 64, 4, 120
	srv := fakevllm.Start(b, fakevllm.Options{Latency: fakevllm.Latency{Base: 20 * time.Millisecond}})
	data, err := filepath.Abs("../experiments/demo/data/esconv.json")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	spec := filepath.Join(dir, "spec.cue")
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "bench/candidates"
datasets: es: {name: "esconv", path: %q}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", concurrency: %d, supports_n: false}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: %d}
`, data, srv.URL(), conc, k)
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	l, err := schema.Load(spec, schema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var stageTime, bareTime time.Duration
	var requests int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		store, err := results.Open(filepath.Join(dir, fmt.Sprintf("b%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		before := srv.Counters().Served["/v1/chat/completions"]
		b.StartTimer()
		t0 := time.Now()
		s, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs")})
		stageTime += time.Since(t0)
		b.StopTimer()
		if err != nil || s.Ran != units {
			b.Fatalf("ran %v units: %v", s.Ran, err)
		}
		n := srv.Counters().Served["/v1/chat/completions"] - before
		requests += n
		store.Close()
		bareTime += bareRequests(b, srv.URL(), int(n), conc)
		b.StartTimer()
	}
	b.StopTimer()
	stageRate := float64(requests) / stageTime.Seconds()
	bareRate := float64(requests) / bareTime.Seconds()
	b.ReportMetric(stageRate, "stage-req/s")
	b.ReportMetric(bareRate, "bare-req/s")
	b.ReportMetric(stageRate/bareRate, "stage/bare")
}

// bareRequests sends n chat requests with a plain go-openai client, conc
// at a time, and returns how long they took.
func bareRequests(b *testing.B, url string, n, conc int) time.Duration {
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	cfg.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc + 8}}
	c := openai.NewClientWithConfig(cfg)
	req := openai.ChatCompletionRequest{Model: "Qwen/Qwen3-8B", MaxTokens: 64, Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: "You are The Anchor, a calm and steady supporter."},
		{Role: "user", Content: "Seeker: I lost my job last week and I cannot sleep.\nReply as The Anchor."}}}
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if _, err := c.CreateChatCompletion(context.Background(), req); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(t0)
}
