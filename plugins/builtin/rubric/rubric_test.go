package rubric

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// judgeServer is a small OpenAI-compatible /chat/completions handler. The
// answer depends on the model name, so one server plays several judges:
//
//	good     -> {"id": {"rationale", "score": S}} where S comes from "S=<n>" in the prompt
//	plus1    -> like good with S+1 (clamped to 5), as a fenced block with trailing text
//	named    -> {"scores": {"<Criterion Name>": "S/5"}}
//	range    -> every score 7
//	garbage  -> no JSON at all
//	first    -> comparison: always "A" (position-biased)
//	smart    -> comparison: the label of the response containing BEST
type judgeServer struct {
	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
}

var sRE = regexp.MustCompile(`S=(\d)`)

func (s *judgeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	msgs := body["messages"].([]any)
	system := msgs[0].(map[string]any)["content"].(string)
	user := msgs[1].(map[string]any)["content"].(string)
	score := 3
	if m := sRE.FindStringSubmatch(user); m != nil {
		score, _ = strconv.Atoi(m[1])
	}
	ids := regexp.MustCompile(`\(id: ([a-z_]+)\)`).FindAllStringSubmatch(system, -1)
	names := regexp.MustCompile(`Criterion (.+?) \(id:`).FindAllStringSubmatch(system, -1)
	obj := map[string]any{}
	var content string
	switch body["model"] {
	case "good", "plus1", "range":
		if body["model"] == "plus1" {
			score = min(score+1, 5)
		}
		if body["model"] == "range" {
			score = 7
		}
		for _, id := range ids {
			obj[id[1]] = map[string]any{"rationale": "because " + id[1], "score": score}
		}
		b, _ := json.Marshal(obj)
		content = string(b)
		if body["model"] == "plus1" {
			content = "<think>hmm</think>```json\n" + content + "\n```\nHope this helps {not json}"
		}
	case "named":
		for _, n := range names {
			obj[n[1]] = fmt.Sprintf("%d/5", score)
		}
		b, _ := json.Marshal(map[string]any{"scores": obj})
		content = string(b)
	case "garbage":
		content = "I am unable to rate this conversation."
	case "first":
		content = `{"rationale": "first is best", "winner": "A", "ranking": ["A", "B"]}`
	case "smart":
		best := "tie"
		for _, l := range []string{"A", "B", "C"} {
			i := strings.Index(user, "## Response "+l)
			if i >= 0 && strings.HasPrefix(user[i+len("## Response X\n"):], "BEST") {
				best = l
			}
		}
		content = fmt.Sprintf(`{"rationale": "r", "winner": %q, "ranking": []}`, best)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
}

func newJudge(t *testing.T, srvURL string, cfg string) *Judge {
	t.Helper()
	j := New()
	ds, err := j.Configure(context.Background(), json.RawMessage(strings.ReplaceAll(cfg, "URL", srvURL)))
	if err != nil || spec.HasErrors(ds) {
		t.Fatalf("configure: %v %v", ds, err)
	}
	return j
}

func TestPromptHasAllCriteriaAndAnchors(t *testing.T) {
	agent := scorePrompt(criteriaFor(PaperV1(), LevelAgent, nil), sdk.Item{Kind: spec.KindCandidate, Response: "hi", Persona: "The Anchor: validates feelings"})
	coll := scorePrompt(criteriaFor(PaperV1(), LevelCollective, nil), sdk.Item{Kind: spec.KindEpisode, Turns: []sdk.Turn{{Speaker: "Anchor", Text: "x"}}})
	for _, c := range PaperV1() {
		p := agent[0].Content
		if c.Level == LevelCollective {
			p = coll[0].Content
		}
		if !strings.Contains(p, c.Name) || !strings.Contains(p, c.Description) {
			t.Fatalf("prompt lacks criterion %s", c.Name)
		}
		if len(c.Anchors) != 5 {
			t.Fatalf("%s has %d anchors", c.ID, len(c.Anchors))
		}
		for _, a := range c.Anchors {
			if !strings.Contains(p, fmt.Sprintf("%d = %s", a.Score, a.Text)) {
				t.Fatalf("prompt lacks anchor %d of %s", a.Score, c.ID)
			}
		}
	}
	if len(criteriaFor(PaperV1(), LevelAgent, nil)) != 5 || len(criteriaFor(PaperV1(), LevelCollective, nil)) != 4 {
		t.Fatal("paper_v1 must have 5 per-agent and 4 collective criteria")
	}
	if !strings.Contains(agent[1].Content, "The Anchor: validates feelings") {
		t.Fatal("persona card missing from the prompt")
	}
}

func TestScoreTwoJudgesPooledAndRequest(t *testing.T) {
	js := &judgeServer{}
	srv := httptest.NewServer(js)
	defer srv.Close()
	t.Setenv("RUBRIC_TEST_KEY", "sekrit-value")
	j := newJudge(t, srv.URL, `{"judges":[{"url":"URL","model":"good","api_key_env":"RUBRIC_TEST_KEY"},{"url":"URL","model":"plus1","name":"second"}]}`)
	items := []sdk.Item{
		{ID: "c1", Kind: spec.KindCandidate, Response: "S=2"},
		{ID: "c2", Kind: spec.KindCandidate, Response: "S=4"},
		{ID: "c3", Kind: spec.KindCandidate, Response: "S=5"},
	}
	res, err := j.Score(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Results[0]
	if len(r.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %+v", r.Diagnostics)
	}
	// 5 criteria x (2 judges + pooled); pooled = (2 + 3)/2 = 2.5.
	if len(r.Scores) != 15 {
		t.Fatalf("scores: %d", len(r.Scores))
	}
	for _, s := range r.Scores {
		want := map[string]float64{"good": 2, "second": 3, "": 2.5}[s.Judge]
		if s.Raw != want {
			t.Fatalf("score %+v, want raw %v", s, want)
		}
	}
	if r.Scores[0].Rationale != "because emotional_expressiveness" || len(r.RawOutputs) != 2 {
		t.Fatalf("rationale/raw outputs: %+v", r)
	}
	// The request: temperature 0 present, json_schema response format, key sent.
	js.mu.Lock()
	defer js.mu.Unlock()
	for i, b := range js.bodies {
		if tv, ok := b["temperature"]; !ok || tv.(float64) != 0 {
			t.Fatalf("temperature not sent as 0: %v", b)
		}
		rf := b["response_format"].(map[string]any)
		if rf["type"] != "json_schema" || rf["json_schema"].(map[string]any)["schema"] == nil {
			t.Fatalf("response_format: %v", rf)
		}
		if b["model"] == "good" && js.auth[i] != "Bearer sekrit-value" {
			t.Fatalf("auth header %q", js.auth[i])
		}
	}
	out, _ := json.Marshal(res)
	if strings.Contains(string(out), "sekrit") {
		t.Fatal("API key leaked into the result")
	}
	// Agreement: units (2,3), (4,5), (5,5) -> stats present for each criterion.
	names := map[string]int{}
	for _, st := range res.Statistics {
		names[st.Name]++
	}
	if names["krippendorff_alpha_interval"] != 5 || names["cohen_kappa"] != 5 {
		t.Fatalf("statistics: %+v", res.Statistics)
	}
}

func TestTolerantParserAndFailures(t *testing.T) {
	srv := httptest.NewServer(&judgeServer{})
	defer srv.Close()
	ep := sdk.Item{ID: "e", Kind: spec.KindEpisode, Turns: []sdk.Turn{{Speaker: "A", Text: "S=4"}, {Speaker: "B", Text: "x"}}}
	for model, wantFail := range map[string]bool{"named": false, "plus1": false, "range": true, "garbage": true} {
		j := newJudge(t, srv.URL, `{"judges":[{"url":"URL","model":"`+model+`"}]}`)
		res, err := j.Score(context.Background(), []sdk.Item{ep})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Results[0]
		if got := spec.HasErrors(r.Diagnostics); got != wantFail {
			t.Fatalf("%s: failed=%v diags=%+v", model, got, r.Diagnostics)
		}
		if wantFail && (len(r.Scores) != 0 || len(r.RawOutputs) != 1) {
			t.Fatalf("%s: partial scores kept or raw output lost: %+v", model, r)
		}
		if !wantFail && len(r.Scores) != 8 { // 4 collective criteria x (judge + pooled)
			t.Fatalf("%s: %d scores", model, len(r.Scores))
		}
	}
}

func TestBlocksAreAveraged(t *testing.T) {
	js := &judgeServer{}
	srv := httptest.NewServer(js)
	defer srv.Close()
	j := newJudge(t, srv.URL, `{"judges":[{"url":"URL","model":"good"}],"block_turns":2,"criteria":["fidelity"]}`)
	ep := sdk.Item{ID: "e", Kind: spec.KindEpisode, Turns: []sdk.Turn{{Text: "S=2"}, {Text: "a"}, {Text: "S=5"}}}
	res, _ := j.Score(context.Background(), []sdk.Item{ep})
	// Blocks [S=2, a] -> 2 and [S=5] -> 5: mean 3.5.
	if len(js.bodies) != 2 || res.Results[0].Scores[0].Raw != 3.5 || res.Results[0].Scores[0].CriterionID != "fidelity" {
		t.Fatalf("calls=%d result=%+v", len(js.bodies), res.Results[0])
	}
}

func TestComparisonSwapAndWinner(t *testing.T) {
	srv := httptest.NewServer(&judgeServer{})
	defer srv.Close()
	item := sdk.Item{ID: "cmp", Kind: spec.KindComparison, Seed: 7, Alternatives: []sdk.Alternative{
		{ID: "m", System: "mascot", Response: "BEST answer"}, {ID: "z", System: "zero-shot", Response: "meh"}, {ID: "f", System: "few-shot", Response: "ok"}}}
	// A position-biased judge always says "A": the swap exposes it -> tie.
	j := newJudge(t, srv.URL, `{"mode":"compare","judges":[{"url":"URL","model":"first"}]}`)
	res, _ := j.Score(context.Background(), []sdk.Item{item})
	if p := res.Results[0].Preferences; len(p) != 2 || p[0].WinnerID != "" || p[1].WinnerID != "" {
		t.Fatalf("biased judge: %+v", res.Results[0])
	}
	// A content-based judge picks the BEST alternative in both orders.
	j = newJudge(t, srv.URL, `{"mode":"compare","judges":[{"url":"URL","model":"smart"},{"url":"URL","model":"first"}]}`)
	res, _ = j.Score(context.Background(), []sdk.Item{item})
	p := res.Results[0].Preferences
	if len(p) != 3 || p[0].WinnerID != "m" || p[1].WinnerID != "" || p[2].Judge != "" {
		t.Fatalf("preferences: %+v", p)
	}
	// Pooled: 1 of 2 judges is no strict majority -> tie.
	if p[2].WinnerID != "" {
		t.Fatalf("pooled: %+v", p[2])
	}
}

func TestConfigDiagnostics(t *testing.T) {
	ds, _ := New().Configure(context.Background(), json.RawMessage(`{"judges":[{"model":"m"}],"criteria":["wit"],"mode":"rank"}`))
	paths := map[string]bool{}
	for _, d := range ds {
		paths[strings.Join(d.Path, ".")] = true
	}
	if !paths["judges.0.url"] || !paths["criteria.0"] || !paths["mode"] {
		t.Fatalf("diagnostics: %+v", ds)
	}
}

func TestParseScoresTable(t *testing.T) {
	crit := criteriaFor(PaperV1(), LevelCollective, []string{"fidelity"})
	for in, want := range map[string]float64{
		`{"fidelity": 4}`: 4,
		"```json\n{\"fidelity\": {\"score\": \"3\"}}\n```":        3,
		`Sure! {"scores": {"Fidelity": "5/5"}} Let me know.`:      5,
		`<think>{"fidelity": 1}</think>{"fidelity": {"score":2}}`: 2,
		`{"fidelity": {"rationale": "a } brace", "score": 4.5}}`:  4.5,
	} {
		got, err := parseScores(in, crit)
		if err != nil || got["fidelity"].raw != want {
			t.Fatalf("%q: %v %v", in, got, err)
		}
	}
	for _, in := range []string{`{"fidelity": 0}`, `{"other": 3}`, `{"fidelity": "great"}`, `no json`, `{"fidelity": 3`} {
		if _, err := parseScores(in, crit); err == nil {
			t.Fatalf("%q accepted", in)
		}
	}
}

// TestEndpointOptionsReachTheRequests: the options' own endpoint fields —
// replicas, sampling, seconds — drive the client: both replicas serve
// requests and every request carries the judge's top_p and top_k.
func TestEndpointOptionsReachTheRequests(t *testing.T) {
	a, b := &judgeServer{}, &judgeServer{}
	sa, sb := httptest.NewServer(a), httptest.NewServer(b)
	defer sa.Close()
	defer sb.Close()
	cfg := `{"judges":[{"url":"` + sa.URL + `","urls":["` + sa.URL + `","` + sb.URL + `"],"model":"good",` +
		`"timeout_s":1.5,"total_timeout_s":30,"concurrency":2,"max_retries":0,"top_p":0.5,"top_k":7}]}`
	j := newJudge(t, "", cfg)
	if e := j.cfg.Judges[0].llmEndpoint(); e.Timeout.Seconds() != 1.5 || e.TotalTimeout.Seconds() != 30 || e.Retries != -1 ||
		e.Concurrency != 2 || len(e.URLs) != 2 {
		t.Errorf("client endpoint = %+v", e)
	}
	var items []sdk.Item
	for i := range 8 {
		items = append(items, sdk.Item{ID: fmt.Sprint(i), Kind: spec.KindCandidate, Response: "S=3"})
	}
	if _, err := j.Score(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*judgeServer{"first": a, "second": b} {
		s.mu.Lock()
		if len(s.bodies) == 0 {
			t.Errorf("the %s replica served no request", name)
		}
		for _, body := range s.bodies {
			if body["top_p"] != 0.5 || body["top_k"] != float64(7) {
				t.Errorf("request sampling top_p %v top_k %v, want 0.5 and 7", body["top_p"], body["top_k"])
			}
		}
		s.mu.Unlock()
	}
	ds, _ := New().Configure(context.Background(), json.RawMessage(`{"judges":[{"url":"http://a/v1","urls":["nope"],"model":"m"}]}`))
	if len(ds) != 1 || strings.Join(ds[0].Path, ".") != "judges.0.urls.0" {
		t.Errorf("a relative replica url: %+v", ds)
	}
}
