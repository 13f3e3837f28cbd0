package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/internal/hugemem"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
)

var (
	modelOnce sync.Once
	modelDir  string
	modelErr  error
)

// tinyModelDir saves one random tiny byte-level model for the whole test
// binary (in a directory removed by TestMain).
func tinyModelDir(t testing.TB) string {
	t.Helper()
	modelOnce.Do(func() {
		cfg := qwen3.Tiny()
		m, err := qwen3.NewRandom(cfg, 7)
		if err != nil {
			modelErr = err
			return
		}
		modelDir = filepath.Join(testRoot, "tiny")
		if modelErr = m.Save(modelDir); modelErr != nil {
			return
		}
		modelErr = WriteByteTokenizerMarker(modelDir)
	})
	if modelErr != nil {
		t.Fatal(modelErr)
	}
	return modelDir
}

// stepSizes records the number of sequences in each of s's engine steps
// (engine.observe) and returns a function giving them so far; at, when
// set, runs after each is recorded with the step's number (1 for the
// first), on the engine's goroutine before the step runs.
func stepSizes(s *Server, at func(step int)) func() []int {
	var mu sync.Mutex
	var sizes []int
	s.eng.observe = func(n int) {
		mu.Lock()
		sizes = append(sizes, n)
		step := len(sizes)
		mu.Unlock()
		if at != nil {
			at(step)
		}
	}
	return func() []int {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sizes)
	}
}

// randomModelDir saves a random tiny model of the given seed in a new
// folder, without the tokenizer marker LoadModel also wants.
func randomModelDir(t testing.TB, seed uint64) string {
	t.Helper()
	m, err := qwen3.NewRandom(qwen3.Tiny(), seed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// adapterDir writes a LoRA adapter with non-zero B for the tiny model.
func adapterDir(t testing.TB, seed uint64) string {
	t.Helper()
	cfg := qwen3.Tiny()
	a, err := lora.New(cfg, lora.NewConfig(tinyModelDir(t), 4, 8, nil), seed)
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range a.Weights {
		if strings.Contains(k, "lora_B") {
			for i := range w.Data {
				w.Data[i] = 0.05 * float32((i*7+int(seed))%11-5)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "adapter")
	if err := a.Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startServer starts a server over the tiny model on a loopback port.
func startServer(t testing.TB, opts Options) (*Server, string) {
	t.Helper()
	if opts.ModelDir == "" {
		opts.ModelDir = tinyModelDir(t)
	}
	if opts.ModelID == "" {
		opts.ModelID = "tiny"
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, url
}

// testToken is the bearer token post and get send: servers started with
// Options.Token = testToken (adapter updates need one) accept them, the
// others ignore it.
const testToken = "test-token"

// post sends JSON with testToken and returns the status and body.
func post(t testing.TB, url string, body any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

type chatResp struct {
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
		Logprobs     *struct {
			Content []struct {
				Token       string  `json:"token"`
				Logprob     float64 `json:"logprob"`
				TopLogprobs []struct {
					Token   string  `json:"token"`
					Logprob float64 `json:"logprob"`
				} `json:"top_logprobs"`
			} `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage usage `json:"usage"`
}

func chat(t testing.TB, url string, body map[string]any) chatResp {
	t.Helper()
	code, b := post(t, url+"/chat/completions", body)
	if code != http.StatusOK {
		t.Fatalf("chat: %d %s", code, b)
	}
	var r chatResp
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("chat response %s: %v", b, err)
	}
	return r
}

func msgs(text string) []map[string]any {
	return []map[string]any{{"role": "user", "content": text}}
}

// apiErr decodes vLLM's error JSON.
func apiErr(t testing.TB, b []byte) (typ, msg string, code int) {
	t.Helper()
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Code    int    `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("error body %s: %v", b, err)
	}
	return e.Error.Type, e.Error.Message, e.Error.Code
}

// waitFor polls cond (state, not time, decides the outcome).
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 20000 {
			t.Fatal("condition never held")
		}
		time.Sleep(time.Millisecond)
	}
}

// streamChunks posts a streaming request and decodes its SSE chunks; done
// reports whether the stream ended with data: [DONE].
func streamChunks(t testing.TB, url string, body any) ([]chunk, bool) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		out, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream: %d %s", resp.StatusCode, out)
	}
	var chunks []chunk
	done := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("SSE line %q", line)
		}
		if done {
			t.Fatalf("data after [DONE]: %q", line)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		chunks = append(chunks, c)
	}
	return chunks, done
}

// childEnv holds the JSON-encoded arguments of a `mascot serve` run in a
// re-executed test binary (see TestMain).
const childEnv = "MASCOT_SERVE_TEST_CHILD"

// runChildIfAsked serves in this process when the test binary was
// re-executed as a server; it returns false otherwise.
func runChildIfAsked() bool {
	raw := os.Getenv(childEnv)
	if raw == "" {
		return false
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, "decoding", childEnv, err)
		os.Exit(2)
	}
	// As `mascot serve` does: huge pages for the heap (cmd/mascot's Main),
	// its flags, then Run until SIGINT or SIGTERM.
	hugemem.AdviseProcess()
	opts, err := ParseArgs(args, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mascot serve:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, opts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mascot serve:", err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}
