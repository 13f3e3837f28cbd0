package nli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// nliServer classifies a pair as CONTRADICTION when the premise says "yes"
// and the hypothesis says "no" (so the direction matters), on both APIs.
func nliServer(t *testing.T) *httptest.Server {
	label := func(p, h string) string {
		if strings.Contains(p, "yes") && strings.Contains(h, "no") {
			return "CONTRADICTION"
		}
		return "NEUTRAL"
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/classify":
			var req struct {
				Model string   `json:"model"`
				Input []string `json:"input"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			var data []map[string]any
			for _, in := range req.Input {
				p, h, ok := strings.Cut(in, "</s></s>")
				if !ok || req.Model != "roberta-large-mnli" {
					t.Errorf("bad classify input %q model %q", in, req.Model)
				}
				data = append(data, map[string]any{"label": label(p, h)})
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
		case "/predict":
			var req struct {
				Inputs [][2]string `json:"inputs"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			var out [][]map[string]any
			for _, in := range req.Inputs {
				l := label(in[0], in[1])
				out = append(out, []map[string]any{{"label": "ENTAILMENT", "score": 0.2}, {"label": l, "score": 0.7}})
			}
			_ = json.NewEncoder(w).Encode(out)
		default:
			http.NotFound(w, r)
		}
	}))
}

func ip(i int) *int { return &i }

// Agent turns: A1 "I say yes" (r0), B1 "I say no" (r0), user, A2 "no indeed"
// (r1), C1 "fine" (r1). Contradictions need premise "yes" + hypothesis "no":
// (A1,B1) and (A1,A2).
var episode = sdk.Episode{ID: "e1", Turns: []sdk.Turn{
	{Role: "agent", Speaker: "A", Text: "I say yes", RoundID: ip(0)},
	{Role: "agent", Speaker: "B", Text: "I say no", RoundID: ip(0)},
	{Role: "user", Speaker: "user", Text: "hmm"},
	{Role: "agent", Speaker: "A", Text: "no indeed", RoundID: ip(1)},
	{Role: "agent", Speaker: "C", Text: "fine", RoundID: ip(1)},
}}

func run(t *testing.T, url, cfg string, eps ...sdk.Episode) sdk.ComputeResult {
	t.Helper()
	m := New()
	ds, err := m.Configure(context.Background(), json.RawMessage(strings.ReplaceAll(cfg, "URL", url)))
	if err != nil || spec.HasErrors(ds) {
		t.Fatalf("configure: %v %v", ds, err)
	}
	res, err := m.Compute(context.Background(), eps)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestPairingModes(t *testing.T) {
	srv := nliServer(t)
	defer srv.Close()
	for cfg, want := range map[string]float64{
		// all pairs: 6 pairs, 2 contradictions
		`{"url":"URL","model":"roberta-large-mnli","pairing":"all-pairs"}`: 2.0 / 6,
		// same round: (A1,B1) in r0 contradicts, (A2,C1) in r1 does not
		`{"url":"URL","model":"roberta-large-mnli"}`: 1.0 / 2,
		// adjacent agents: (A1,B1) yes, (B1,A2) no, (A2,C1) no
		`{"url":"URL","model":"roberta-large-mnli","pairing":"adjacent-agent"}`: 1.0 / 3,
		// the same on the TEI API
		`{"url":"URL","api":"tei-predict","pairing":"all-pairs","batch_size":4}`: 2.0 / 6,
	} {
		res := run(t, srv.URL, cfg, episode)
		if got := res.Values[0].Values["contradiction_rate"]; got != want || res.Aggregate["contradiction_rate"] != want {
			t.Fatalf("%s: rate %v, want %v", cfg, got, want)
		}
	}
}

func TestDirection(t *testing.T) {
	srv := nliServer(t)
	defer srv.Close()
	// Earlier "no way", later "yes sure": temporal (premise = earlier) finds
	// no contradiction, bidirectional does.
	ep := sdk.Episode{ID: "d", Turns: []sdk.Turn{
		{Role: "agent", Speaker: "A", Text: "no way", RoundID: ip(0)},
		{Role: "agent", Speaker: "B", Text: "yes sure", RoundID: ip(0)},
	}}
	if r := run(t, srv.URL, `{"url":"URL","model":"roberta-large-mnli"}`, ep); r.Values[0].Values["contradiction_rate"] != 0 {
		t.Fatalf("temporal: %+v", r.Values[0])
	}
	if r := run(t, srv.URL, `{"url":"URL","model":"roberta-large-mnli","direction":"bidirectional"}`, ep); r.Values[0].Values["contradiction_rate"] != 1 {
		t.Fatalf("bidirectional: %+v", r.Values[0])
	}
}

func TestRoundInference(t *testing.T) {
	srv := nliServer(t)
	defer srv.Close()
	noRounds := sdk.Episode{ID: "nr", Turns: make([]sdk.Turn, len(episode.Turns))}
	for i, tu := range episode.Turns {
		tu.RoundID = nil
		noRounds.Turns[i] = tu
	}
	res := run(t, srv.URL, `{"url":"URL","model":"roberta-large-mnli"}`, noRounds)
	if !spec.HasErrors(res.Values[0].Diagnostics) || len(res.Values[0].Values) != 0 {
		t.Fatalf("missing round ids accepted: %+v", res.Values[0])
	}
	// Inferred rounds split at the user turn: the same as the real round ids.
	res = run(t, srv.URL, `{"url":"URL","model":"roberta-large-mnli","allow_round_inference":true}`, noRounds)
	if res.Values[0].Values["contradiction_rate"] != 0.5 {
		t.Fatalf("inferred rounds: %+v", res.Values[0])
	}
}

func TestConfigErrors(t *testing.T) {
	ds, _ := New().Configure(context.Background(), json.RawMessage(`{"pairing":"random"}`))
	paths := map[string]bool{}
	for _, d := range ds {
		paths[strings.Join(d.Path, ".")] = true
	}
	if !paths["url"] || !paths["pairing"] {
		t.Fatalf("diagnostics: %+v", ds)
	}
}
