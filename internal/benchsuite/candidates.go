package benchsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"mascot.dev/mascot/experiments"
	"mascot.dev/mascot/internal/gcpace"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all" // the candidates kind
	"mascot.dev/mascot/schema"
)

// The candidates phase's shape: 3 personas, K = 4 single requests per
// (context, persona), endpoint concurrency 64, 20 ms per reply (the ideal
// is 3,200 requests per second).
const (
	candConc     = 64
	candK        = 4
	candPersonas = 3
	candLatency  = 20 * time.Millisecond
)

// candidatesCase is one variant of the phase.
type candidatesCase struct {
	name string
	long bool // QMSum-length contexts
	busy bool // a second process keeps one core busy meanwhile
	// fresh runs each side of a round in a new process (candidates_fresh.go)
	fresh bool
	// history is the number of dialogue contexts of an earlier run the
	// store already holds when the stage starts (0: a new store), as a
	// researcher's database does after some runs.
	history int
	goal    float64
	label   string
}

// candidatesRows runs the candidates phase's variants, rounds rounds each,
// with contexts dialogue contexts per stage run; the history case, whose
// store holds an earlier run over history other contexts, runs unless
// history is 0.
func candidatesRows(ctx context.Context, dir string, contexts, history, rounds int) ([]Row, error) {
	url, stop, err := helper("server", helperEnv+"_LATENCY="+candLatency.String())
	if err != nil {
		return nil, err
	}
	defer stop()
	cases := []candidatesCase{
		{name: "short", goal: 0.90, label: "candidates stage"},
		{name: "busy", busy: true, goal: 0.90, label: "candidates stage + busy process"},
		{name: "long", long: true, goal: 0.85, label: "candidates stage, QMSum length"},
		{name: "fresh", fresh: true, goal: 0.90, label: "candidates stage, each side a fresh process"},
	}
	if history > 0 {
		cases = append(cases, candidatesCase{name: "history", history: history, goal: 0.90,
			label: fmt.Sprintf("candidates stage, store holding %d earlier units", history*candPersonas)})
	}
	var rows []Row
	for _, c := range cases {
		rs, err := candidatesCaseRows(ctx, filepath.Join(dir, c.name), url, c, contexts, rounds)
		if err != nil {
			return nil, fmt.Errorf("candidates (%s): %w", c.name, err)
		}
		rows = append(rows, rs...)
	}
	return rows, nil
}

func candidatesCaseRows(ctx context.Context, dir, url string, c candidatesCase, contexts, rounds int) ([]Row, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l, err := candidatesSpec(dir, url, contexts, 0, c.long)
	if err != nil {
		return nil, err
	}
	var history string // a store holding an earlier run, copied for each stage run
	if c.history > 0 {
		if history, err = historyStore(ctx, dir, url, c); err != nil {
			return nil, err
		}
	}
	want := contexts * candPersonas * candK
	run := 0
	var firstRun string
	stageRun := func() (cost, error) {
		run++
		path := filepath.Join(dir, fmt.Sprintf("r%d.db", run))
		if history != "" {
			if err := copyFile(history, path); err != nil {
				return cost{}, err
			}
			if run > 1 { // each a copy of the history: not kept
				defer func() { _ = results.RemoveDB(path) }()
			}
		}
		store, err := results.Open(path)
		if err != nil {
			return cost{}, err
		}
		defer store.Close()
		co, runID, err := runStage(ctx, l, store, dir, want)
		if err != nil {
			return co, err
		}
		if run == 1 {
			firstRun = runID
		}
		return co, nil
	}
	// An untimed run first: it warms the caches and gives the bare client
	// the stage's prompts for every round.
	if _, err := stageRun(); err != nil {
		return nil, err
	}
	prompts, bytes, err := storedPrompts(filepath.Join(dir, "r1.db"), firstRun)
	if err != nil {
		return nil, err
	}
	if history != "" {
		if err := holdsHistory(filepath.Join(dir, "r1.db"), (c.history+contexts)*candPersonas); err != nil {
			return nil, err
		}
		_ = results.RemoveDB(filepath.Join(dir, "r1.db")) // read: 80 MB not kept
	}
	if len(prompts) != want {
		return nil, fmt.Errorf("%d candidates stored for %d requests", len(prompts), want)
	}
	if c.busy {
		_, stopBusy, err := helper("busy")
		if err != nil {
			return nil, err
		}
		defer stopBusy()
	}
	stageSide := stageRun
	bareSide := func() (cost, error) { return bareRequests(ctx, url, prompts, candConc) }
	if c.fresh {
		stageSide = func() (cost, error) {
			return runFresh(freshSide{Side: "stage", Dir: dir, URL: url, Contexts: contexts,
				DB: filepath.Join(dir, "fresh.db"), Want: want})
		}
		bareSide = func() (cost, error) {
			return runFresh(freshSide{Side: "bare", URL: url, DB: filepath.Join(dir, "r1.db"), RunID: firstRun, Want: want})
		}
	}
	var rate, cpu []float64
	var stageCosts, bareCosts []cost
	for r := range rounds {
		var st, ba cost
		var err error
		steps := []func() error{
			func() error { st, err = stageSide(); return err },
			func() error { ba, err = bareSide(); return err },
		}
		for k := range steps {
			// Each side starts from a collected heap, as a run in a
			// fresh process does, rather than finishing the other
			// side's collection cycle inside its own measurement.
			runtime.GC()
			if err := steps[(k+r)%2](); err != nil {
				return nil, err
			}
		}
		stageCosts, bareCosts = append(stageCosts, st), append(bareCosts, ba)
		rate = append(rate, ba.wall/st.wall) // same requests: rate ratio = time ratio inverted
		cpu = append(cpu, st.cpu/ba.cpu)
	}
	perReq := func(cs []cost) float64 {
		var v []float64
		for _, x := range cs {
			v = append(v, x.cpu/float64(want)*1e6)
		}
		_, m, _ := Spread(v)
		return m
	}
	_, bw, _ := Spread(func() []float64 {
		var v []float64
		for _, x := range bareCosts {
			v = append(v, float64(want)/x.wall)
		}
		return v
	}())
	label := fmt.Sprintf("%s, %.1f kB", c.label, float64(bytes)/float64(want)/1e3)
	return []Row{
		{Figure: label + ": req/s", Anchor: "bare go-openai client's req/s", Values: rate,
			Cost: costs(stageCosts), Goal: fmt.Sprintf("≥ %.2f", c.goal), Met: atLeast(c.goal),
			Note: fmt.Sprintf("%d requests a round; bare client %.0f req/s (ideal %d)", want, bw,
				int(float64(candConc)/candLatency.Seconds()))},
		{Figure: label + ": CPU/request", Anchor: "bare client's CPU/request", Values: cpu,
			Cost: costs(bareCosts) + " (bare)", Goal: "≤ 2", Met: atMost(2),
			Note: fmt.Sprintf("median %.0f µs per request (stage) vs %.0f µs (bare)", perReq(stageCosts), perReq(bareCosts))},
	}, nil
}

// runStage runs the stage of l once into store, measured, and checks that
// it sent want requests; it returns the run's id.
func runStage(ctx context.Context, l *schema.Loaded, store *results.Store, dir string, want int) (cost, string, error) {
	var s *runner.Summary
	co, err := measure(func() (err error) {
		s, err = runner.Execute(ctx, runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs")})
		return err
	})
	if err != nil {
		return co, "", err
	}
	if n := s.Counters["llm.speaker.attempts"]; n != int64(want) {
		return co, "", fmt.Errorf("the stage sent %d requests, want %d", n, want)
	}
	return co, s.RunID, nil
}

// writeContexts writes n dialogue contexts in ESConv's format, numbered
// from first, to dir/name: the demo's conversations (their ids, and so the
// units, differ per number), each followed by the turns of the next four
// (requests of about 2.5 kB, a paper/empathetic speaker's), or with long
// by those of the next eighteen (about 7 kB, the length of a QMSum meeting
// excerpt the paper's prompts carry).
func writeContexts(dir, name string, first, n int, long bool) (string, error) {
	src, err := experiments.Files.ReadFile("demo/data/esconv.json")
	if err != nil {
		return "", err
	}
	var convs []map[string]any
	if err := json.Unmarshal(src, &convs); err != nil {
		return "", err
	}
	var all []map[string]any
	for i := first; i < first+n; i++ {
		c := map[string]any{}
		for k, v := range convs[i%len(convs)] {
			c[k] = v
		}
		if parts := map[bool]int{false: 5, true: 19}[long]; parts > 1 {
			var dialog []any
			for k := range parts {
				dialog = append(dialog, convs[(i+k)%len(convs)]["dialog"].([]any)...)
			}
			c["dialog"] = dialog
		}
		c["situation"] = fmt.Sprintf("%s (%d)", c["situation"], i)
		all = append(all, c)
	}
	out, err := json.Marshal(all)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, out, 0o644)
}

// storedPrompts returns the prompts run runID's stage stored, one per
// candidate (a request each), and the bytes of their request bodies.
func storedPrompts(path, runID string) ([][]openai.ChatCompletionMessage, int, error) {
	store, err := results.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer store.Close()
	rows, err := store.Reader().Query(`SELECT COALESCE(p.prompt, c.prompt) FROM candidates c
		LEFT JOIN candidate_prompts p ON p.id = c.prompt_id WHERE c.run_id = ?`, runID)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out [][]openai.ChatCompletionMessage
	total := 0
	for rows.Next() {
		var raw string
		var msgs []openai.ChatCompletionMessage
		if err := rows.Scan(&raw); err != nil {
			return nil, 0, err
		}
		if err := json.Unmarshal([]byte(raw), &msgs); err != nil {
			return nil, 0, err
		}
		out = append(out, msgs)
		body, err := json.Marshal(bareRequest(msgs))
		if err != nil {
			return nil, 0, err
		}
		total += len(body)
	}
	return out, total, rows.Err()
}

// bareRequests sends the prompts with a plain go-openai client, conc at a
// time.
func bareRequests(ctx context.Context, url string, prompts [][]openai.ChatCompletionMessage, conc int) (cost, error) {
	// The anchor runs under the collector settings a run raises (gcpace),
	// so the ratio compares the two paths' work, not their GC targets.
	defer gcpace.Raise(100)()
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	tr := &http.Transport{MaxIdleConnsPerHost: conc + 8}
	cfg.HTTPClient = &http.Client{Transport: tr}
	c := openai.NewClientWithConfig(cfg)
	jobs := make(chan []openai.ChatCompletionMessage, len(prompts))
	for _, p := range prompts {
		jobs <- p
	}
	close(jobs)
	var once sync.Once
	var first error
	return measure(func() error {
		var wg sync.WaitGroup
		for range conc {
			wg.Go(func() {
				for msgs := range jobs {
					if _, err := c.CreateChatCompletion(ctx, bareRequest(msgs)); err != nil {
						once.Do(func() { first = err })
						return
					}
				}
			})
		}
		wg.Wait()
		// Closed as the stage's client closes its own when a run ends:
		// left open, every round's connections (and their two goroutines
		// each, and the server's one) stayed for the rest of the suite,
		// and each collection in either process scanned them all.
		tr.CloseIdleConnections()
		return first
	})
}

// bareRequest is the bare client's request for a prompt.
func bareRequest(msgs []openai.ChatCompletionMessage) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{Model: "Qwen/Qwen3-8B", MaxTokens: 64, Messages: msgs}
}
