package train_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/train"
	"mascot.dev/mascot/schema"
)

func TestPretrainServedByEngine(t *testing.T) {
	h := newHarness(t, writeSpec(t, ""), nil)
	var log bytes.Buffer
	h.opts.Progress = &log
	first := h.run()
	if first.Ran != 1 {
		t.Fatalf("first run ran %d units, want 1", first.Ran)
	}
	// The progress log shows training steps as they run (the first at once, the last at the end).
	for _, want := range []string{"stage pre: step=1/30 loss=", "stage pre: step=30/30 loss="} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("progress log lacks %q:\n%s", want, log.String())
		}
	}
	a := h.artifact("model")
	for _, f := range []string{"config.json", "model.safetensors", "mascot.json"} {
		if _, err := os.Stat(filepath.Join(a.Path, f)); err != nil {
			t.Fatalf("model dir lacks %s: %v", f, err)
		}
	}
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'pre' AND loss IS NOT NULL`); n != 30 {
		t.Fatalf("%d training steps, want 30", n)
	}
	var firstLoss, lastLoss float64
	h.store.Reader().QueryRow(`SELECT loss FROM training_steps ORDER BY step LIMIT 1`).Scan(&firstLoss)
	h.store.Reader().QueryRow(`SELECT loss FROM training_steps ORDER BY step DESC LIMIT 1`).Scan(&lastLoss)
	if !(lastLoss < firstLoss) {
		t.Fatalf("loss did not fall: %v → %v", firstLoss, lastLoss)
	}
	if second := h.run(); second.Ran != 0 || second.Cached != 1 {
		t.Fatalf("rerun ran %d cached %d, want 0 and 1", second.Ran, second.Cached)
	}

	eng := train.NewEngine()
	defer eng.Close()
	ctx := context.Background()
	spk, err := eng.Start(ctx, "speaker", schema.Endpoint{Kind: "builtin", Model: "mascot-tiny", ModelStage: "pre", Concurrency: 2}, "stage x")
	if err != nil {
		t.Fatal(err)
	}
	if err := spk.UseModel(ctx, a.Path); err != nil {
		t.Fatal(err)
	}
	jdg, err := eng.Start(ctx, "judge", schema.Endpoint{Kind: "builtin", Model: "judge-tiny", ModelDir: a.Path}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		srv   runner.EngineServer
		model string
	}{{spk, "mascot-tiny"}, {jdg, "judge-tiny"}} {
		body, _ := json.Marshal(map[string]any{"model": c.model, "max_tokens": 8, "temperature": 0,
			"messages": []map[string]string{{"role": "user", "content": "hello there."}}})
		req, err := http.NewRequest(http.MethodPost, c.srv.URL()+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+c.srv.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Model   string `json:"model"`
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("chat completion: status %d, %v", resp.StatusCode, err)
		}
		if out.Model != c.model || len(out.Choices) != 1 || out.Usage.CompletionTokens == 0 {
			t.Fatalf("unexpected completion %+v", out)
		}
	}
}

func TestMissingHubModelSaysWhereItLooked(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	_, err := train.NewEngine().Start(context.Background(), "x", schema.Endpoint{Kind: "builtin", Model: "Org/not-there"}, "")
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("models--Org--not-there")) {
		t.Fatalf("error %v does not say where mascot looked", err)
	}
}
