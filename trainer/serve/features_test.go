package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// judgeSchema is the shape the rubric judge and the Director send.
const judgeSchema = `{"type":"object","properties":{
 "agent":{"type":"string","enum":["Ana","Ben","Bo"]},
 "rationale":{"type":"string","maxLength":40},
 "score":{"type":"integer","minimum":1,"maximum":5},
 "confident":{"type":"boolean"},
 "tags":{"type":"array","items":{"type":"string","maxLength":8},"maxItems":3},
 "detail":{"type":"object","properties":{"weight":{"type":"number"}},"required":["weight"]}},
 "required":["agent","rationale","score","confident","detail"],"additionalProperties":false}`

type judgeDoc struct {
	Agent     *string  `json:"agent"`
	Rationale *string  `json:"rationale"`
	Score     *int     `json:"score"`
	Confident *bool    `json:"confident"`
	Tags      []string `json:"tags"`
	Detail    *struct {
		Weight *float64 `json:"weight"`
	} `json:"detail"`
}

func checkJudge(doc string) error {
	d := json.NewDecoder(strings.NewReader(doc))
	d.DisallowUnknownFields()
	var j judgeDoc
	if err := d.Decode(&j); err != nil {
		return err
	}
	switch {
	case j.Agent == nil || (*j.Agent != "Ana" && *j.Agent != "Ben" && *j.Agent != "Bo"):
		return fmt.Errorf("agent %v", j.Agent)
	case j.Rationale == nil || len([]rune(*j.Rationale)) > 40:
		return fmt.Errorf("rationale %v", j.Rationale)
	case j.Score == nil || *j.Score < 1 || *j.Score > 5:
		return fmt.Errorf("score %v", j.Score)
	case j.Confident == nil || j.Detail == nil || j.Detail.Weight == nil || len(j.Tags) > 3:
		return fmt.Errorf("missing fields")
	}
	return nil
}

func TestJSONSchemaOutputValidates(t *testing.T) {
	_, url := startServer(t, Options{})
	var schema any
	if err := json.Unmarshal([]byte(judgeSchema), &schema); err != nil {
		t.Fatal(err)
	}
	for seed := range 6 {
		body := map[string]any{"model": "tiny", "messages": msgs("Judge this."), "n": 2, "seed": seed, "temperature": 1,
			"max_tokens": 140, "response_format": map[string]any{"type": "json_schema",
				"json_schema": map[string]any{"name": "judge", "schema": schema, "strict": true}}}
		for _, c := range chat(t, url, body).Choices {
			if err := checkJudge(c.Message.Content); err != nil {
				t.Errorf("seed %d: %q: %v", seed, c.Message.Content, err)
			}
			if c.FinishReason != "stop" {
				t.Errorf("seed %d: finish %q for %q", seed, c.FinishReason, c.Message.Content)
			}
		}
	}
	// Streaming goes through the same masking.
	body := map[string]any{"model": "tiny", "messages": msgs("Judge."), "seed": 42, "max_tokens": 100, "stream": true,
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "j", "schema": schema}}}
	chunks, _ := streamChunks(t, url+"/chat/completions", body)
	var text string
	for _, c := range chunks {
		for _, ch := range c.Choices {
			text += ch.Delta.Content
		}
	}
	if err := checkJudge(text); err != nil {
		t.Errorf("streamed %q: %v", text, err)
	}
}

func TestAdapterLoadUnloadStatusCodes(t *testing.T) {
	ad := adapterDir(t, 3)
	_, url := startServer(t, Options{Token: testToken, AdapterUpdates: true})
	type tc struct {
		body      map[string]any
		path      string
		code      int
		typ, text string
	}
	for _, c := range []tc{
		{map[string]any{"lora_name": "a"}, "/load_lora_adapter", 400, "InvalidUserInput", "Both 'lora_name' and 'lora_path' must be provided."},
		{map[string]any{"lora_name": "a", "lora_path": t.TempDir()}, "/load_lora_adapter", 400, "BadRequestError", "Loading lora a failed: the path given holds no adapter this model can load"},
		{map[string]any{"lora_name": "a", "lora_path": ad}, "/load_lora_adapter", 200, "", "Success: LoRA adapter 'a' added successfully."},
		{map[string]any{"lora_name": "a", "lora_path": ad}, "/load_lora_adapter", 400, "InvalidUserInput", "The lora adapter 'a' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True."},
		{map[string]any{"lora_name": "a", "lora_path": ad, "load_inplace": true}, "/load_lora_adapter", 200, "", "Success: LoRA adapter 'a' added successfully."},
		{map[string]any{"lora_name": "tiny", "lora_path": ad}, "/load_lora_adapter", 400, "InvalidUserInput", "The lora adapter name 'tiny' conflicts with a served base model."},
		{map[string]any{}, "/unload_lora_adapter", 400, "InvalidUserInput", "'lora_name' needs to be provided to unload a LoRA adapter."},
		{map[string]any{"lora_name": "zz"}, "/unload_lora_adapter", 404, "NotFoundError", "The lora adapter 'zz' cannot be found."},
	} {
		code, b := post(t, url+c.path, c.body)
		if code != c.code {
			t.Errorf("%s %v: %d %s, want %d", c.path, c.body, code, b, c.code)
			continue
		}
		if c.code == 200 {
			if string(b) != c.text {
				t.Errorf("%s: body %q, want %q", c.path, b, c.text)
			}
			continue
		}
		typ, msg, ec := apiErr(t, b)
		if typ != c.typ || ec != c.code || !strings.HasPrefix(msg, c.text) {
			t.Errorf("%s %v: %s/%d %q, want %s %q", c.path, c.body, typ, ec, msg, c.typ, c.text)
		}
	}
	body := map[string]any{"model": "tiny", "messages": msgs("adapter"), "temperature": 1, "seed": 4, "max_tokens": 16, "logprobs": true}
	baseOut := chat(t, url, body)
	body["model"] = "a"
	adOut := chat(t, url, body)
	if baseOut.Choices[0].Logprobs.Content[0].Logprob == adOut.Choices[0].Logprobs.Content[0].Logprob {
		t.Errorf("adapter did not change the distribution")
	}
	if code, b := post(t, url+"/unload_lora_adapter", map[string]any{"lora_name": "a"}); code != 200 || string(b) != "Success: LoRA adapter 'a' removed successfully." {
		t.Errorf("unload: %d %s", code, b)
	}
	if code, _ := post(t, url+"/chat/completions", body); code != http.StatusNotFound {
		t.Errorf("chat on an unloaded adapter: %d, want 404", code)
	}
}

func TestQueueFullAnswers503(t *testing.T) {
	s, url := startServer(t, Options{MaxQueue: 1, MaxBatch: 1})
	gate := make(chan struct{})
	var released sync.Once
	t.Cleanup(func() { released.Do(func() { close(gate) }) })
	var once sync.Once
	s.eng.beforeStep = func() { once.Do(func() { <-gate }) }
	body := map[string]any{"model": "tiny", "messages": msgs("q"), "max_tokens": 4}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range 2 {
		wg.Go(func() { codes[i], _ = post(t, url+"/chat/completions", body) })
		if i == 0 {
			waitFor(t, func() bool { return s.eng.running.Load() == 1 })
		}
	}
	waitFor(t, func() bool { return s.eng.waiting() == 1 })
	_, metrics := get(t, strings.TrimSuffix(url, "/v1")+"/metrics")
	for _, want := range []string{`vllm:num_requests_running{model_name="tiny"} 1`, `vllm:num_requests_waiting{model_name="tiny"} 1`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics)
		}
	}
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"x"}],"max_tokens":2}`))
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Code    int    `json:"code"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != 503 || e.Error.Code != 503 || e.Error.Type != "ServiceUnavailableError" ||
		!strings.Contains(e.Error.Message, "queue is full") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("full queue: %d %+v Retry-After=%q", resp.StatusCode, e.Error, resp.Header.Get("Retry-After"))
	}
	released.Do(func() { close(gate) })
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("queued requests finished with %v", codes)
	}
}
