package runner_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/gcpace"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestHelperFakeServer is not a test: BenchmarkCandidatesStage re-executes
// the test binary with FAKEVLLM_HELPER=1 to run the fake server in a
// process of its own, so that each path's CPU time can be measured alone.
func TestHelperFakeServer(t *testing.T) {
	if os.Getenv("FAKEVLLM_HELPER") != "1" {
		return
	}
	lat, err := time.ParseDuration(os.Getenv("FAKEVLLM_LATENCY"))
	if err != nil {
		t.Fatal(err)
	}
	s := fakevllm.Start(nil, fakevllm.Options{Latency: fakevllm.Latency{Base: lat}})
	fmt.Println("URL", s.URL())
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
	s.Close()
}

// benchServer starts the fake server in a child process; stop ends it.
func benchServer(b *testing.B, latency time.Duration) (url string, stop func()) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFakeServer$")
	cmd.Env = append(os.Environ(), "FAKEVLLM_HELPER=1", "FAKEVLLM_LATENCY="+latency.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "URL ") {
		b.Fatalf("helper server: %q %v", line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "URL ")), func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}
}

// cpuSelf is the CPU time (user + system) this process has used.
func cpuSelf() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sysSelf is the part of cpuSelf spent in the kernel.
func sysSelf() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Stime.Nano())
}

// benchContexts writes the demo ESConv file repeated copies times (the
// samples' ids, and so the units, differ) and returns its path.
func benchContexts(b *testing.B, dir string, copies int) (string, int) {
	src, err := os.ReadFile("../experiments/demo/data/esconv.json")
	if err != nil {
		b.Fatal(err)
	}
	var convs []json.RawMessage
	if err := json.Unmarshal(src, &convs); err != nil {
		b.Fatal(err)
	}
	var all []json.RawMessage
	for range copies {
		all = append(all, convs...)
	}
	out, err := json.Marshal(all)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "esconv.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, len(all)
}

// BenchmarkCandidatesStage runs a candidates stage (200 contexts x 3
// personas, K=4 single requests: 2,400 requests) through the real runner
// and store against the fake server (its own process, 20 ms latency;
// endpoint concurrency 64, so the ideal is 3,200 req/s), then sends as
// many requests with a bare go-openai client, 64 at a time, to the same
// server with the prompts the stage sent. It reports both rates, their
// ratio (goal >= 0.9) and each path's CPU time per request, and its kernel part.
//
//	go test -run '^$' -bench CandidatesStage -benchtime 5x ./runner
func BenchmarkCandidatesStage(b *testing.B) {
	const conc, k, personas = 64, 4, 3
	url, stop := benchServer(b, 20*time.Millisecond)
	defer stop()
	dir := b.TempDir()
	data, contexts := benchContexts(b, dir, 5)
	units := contexts * personas
	l := candidatesBenchSpec(b, dir, data, url, 0, conc, k)
	var stageTime, bareTime, stageCPU, bareCPU, stageSys, bareSys time.Duration
	var requests int64
	var stageMem, bareMem memDelta
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		store, err := results.Open(filepath.Join(dir, fmt.Sprintf("b%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		m0 := readMem()
		cpu0, sys0, t0 := cpuSelf(), sysSelf(), time.Now()
		var s *runner.Summary
		// The label tags this path's samples (and its goroutines') in a
		// -cpuprofile: go tool pprof -tagfocus path=stage.
		pprof.Do(context.Background(), pprof.Labels("path", "stage"), func(ctx context.Context) {
			s, err = runner.Execute(ctx, runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs")})
		})
		stageTime += time.Since(t0)
		stageCPU += cpuSelf() - cpu0
		stageSys += sysSelf() - sys0
		stageMem.add(m0, readMem())
		b.StopTimer()
		if err != nil || s.Ran != units {
			b.Fatalf("ran %v of %d units: %v", s.Ran, units, err)
		}
		n := s.Counters["llm.speaker.attempts"]
		if n != int64(units*k) {
			b.Fatalf("the stage sent %d requests, want %d", n, units*k)
		}
		requests += n
		prompts := stagePrompts(b, store)
		if len(prompts) != int(n) {
			b.Fatalf("%d candidates stored for %d requests", len(prompts), n)
		}
		if err := store.Close(); err != nil {
			b.Fatal(err)
		}
		m0 = readMem()
		cpu0, sys0 = cpuSelf(), sysSelf()
		pprof.Do(context.Background(), pprof.Labels("path", "bare"), func(context.Context) {
			bareTime += bareRequests(b, url, prompts, conc)
		})
		bareCPU += cpuSelf() - cpu0
		bareSys += sysSelf() - sys0
		bareMem.add(m0, readMem())
		b.StartTimer()
	}
	b.StopTimer()
	stageRate := float64(requests) / stageTime.Seconds()
	bareRate := float64(requests) / bareTime.Seconds()
	b.ReportMetric(stageRate, "stage-req/s")
	b.ReportMetric(bareRate, "bare-req/s")
	b.ReportMetric(stageRate/bareRate, "stage/bare")
	b.ReportMetric(float64(stageCPU.Microseconds())/float64(requests), "stage-cpu-µs/req")
	b.ReportMetric(float64(bareCPU.Microseconds())/float64(requests), "bare-cpu-µs/req")
	b.ReportMetric(float64(stageSys.Microseconds())/float64(requests), "stage-sys-µs/req")
	b.ReportMetric(float64(bareSys.Microseconds())/float64(requests), "bare-sys-µs/req")
	stageMem.report(b, "stage", requests)
	bareMem.report(b, "bare", requests)
}

// candidatesBenchSpec writes and loads a spec with one candidates stage
// (k requests per unit, no n) over the contexts in data (limit of them, 0
// for all) against url with conc slots.
func candidatesBenchSpec(b *testing.B, dir, data, url string, limit, conc, k int) *schema.Loaded {
	b.Helper()
	lim := ""
	if limit > 0 {
		lim = fmt.Sprintf(", limit: %d", limit)
	}
	spec := filepath.Join(dir, "spec.cue")
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "bench/candidates"
datasets: es: {name: "esconv", path: %q%s}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", concurrency: %d, supports_n: false}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: %d}
`, data, lim, url, conc, k)
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// memDelta sums what the runtime counted between two readMem calls:
// heap bytes and objects allocated, and collections run. Garbage is a
// large share of the stage's CPU, so the benchmark reports it per request
// beside the CPU time.
type memDelta struct{ bytes, objects, gcs uint64 }

func readMem() runtime.MemStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

func (d *memDelta) add(before, after runtime.MemStats) {
	d.bytes += after.TotalAlloc - before.TotalAlloc
	d.objects += after.Mallocs - before.Mallocs
	d.gcs += uint64(after.NumGC - before.NumGC)
}

func (d *memDelta) report(b *testing.B, path string, requests int64) {
	b.ReportMetric(float64(d.bytes)/float64(requests), path+"-B/req")
	b.ReportMetric(float64(d.objects)/float64(requests), path+"-allocs/req")
	b.ReportMetric(float64(d.gcs)/float64(b.N), path+"-gcs/round")
}

// stagePrompts returns the prompts the stage sent, one per candidate
// stored (a request each).
func stagePrompts(b *testing.B, store *results.Store) [][]openai.ChatCompletionMessage {
	rows, err := store.Reader().Query(`SELECT COALESCE(p.prompt, c.prompt) FROM candidates c LEFT JOIN candidate_prompts p ON p.id = c.prompt_id`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var out [][]openai.ChatCompletionMessage
	for rows.Next() {
		var raw string
		var msgs []openai.ChatCompletionMessage
		if err := rows.Scan(&raw); err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal([]byte(raw), &msgs); err != nil {
			b.Fatal(err)
		}
		out = append(out, msgs)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// bareRequests sends the prompts with a plain go-openai client, conc at a
// time, and returns how long they took.
func bareRequests(b *testing.B, url string, prompts [][]openai.ChatCompletionMessage, conc int) time.Duration {
	// The anchor runs under the collector settings a run raises (gcpace),
	// so the ratio compares the two paths' work, not their GC targets.
	defer gcpace.Raise(100)()
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	cfg.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc + 8}}
	c := openai.NewClientWithConfig(cfg)
	jobs := make(chan []openai.ChatCompletionMessage, len(prompts))
	for _, p := range prompts {
		jobs <- p
	}
	close(jobs)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for msgs := range jobs {
				req := openai.ChatCompletionRequest{Model: "Qwen/Qwen3-8B", MaxTokens: 64, Messages: msgs}
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

// BenchmarkSmallCandidatesStage runs a candidates stage smaller than its
// endpoint (3 contexts × 3 personas, K = 4 without n: 36 requests for 64
// slots) against a fake server answering in 200 ms, and reports a run's
// seconds beside the floor of one reply's latency: a unit's requests go
// out together there (runner/stages/candidates, together), so a run takes
// about one latency instead of K.
//
//	go test ./runner -run '^$' -bench 'SmallCandidatesStage$' -benchtime 3x
func BenchmarkSmallCandidatesStage(b *testing.B) {
	const latency = 200 * time.Millisecond
	url, stop := benchServer(b, latency)
	defer stop()
	dir := b.TempDir()
	data, _ := benchContexts(b, dir, 1)
	l := candidatesBenchSpec(b, dir, data, url, 3, 64, 4)
	var took time.Duration
	for i := 0; b.Loop(); i++ {
		store, err := results.Open(filepath.Join(dir, fmt.Sprintf("s%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		s, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs")})
		took += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if s.Ran != 9 || s.Counters["llm.speaker.attempts"] != 36 {
			b.Fatalf("ran %d of 9 units, %d requests of 36", s.Ran, s.Counters["llm.speaker.attempts"])
		}
		if err := store.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(took.Seconds()/float64(b.N), "s/run")
	b.ReportMetric(latency.Seconds(), "latency-s")
}
