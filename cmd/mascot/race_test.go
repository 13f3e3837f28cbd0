package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/runner"
)

// lengthJudge is an OpenAI-compatible judge server that scores a response
// by its length (1 + a point per 4 words, at most 5) plus a ±1 drawn from
// a hash of the request, so the variants of a sweep over the speaker's
// max_tokens separate, noisily.
func lengthJudge(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat struct {
				JSONSchema struct {
					Schema struct {
						Properties map[string]any `json:"properties"`
					} `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content)
		}
		_, resp, _ := strings.Cut(all.String(), "## Response to evaluate\n")
		words := len(strings.Fields(resp))
		out := map[string]any{}
		for id := range req.ResponseFormat.JSONSchema.Schema.Properties {
			h := fnv.New64a()
			fmt.Fprintf(h, "%s\x00%s", all.String(), id)
			s := min(5, 1+words/4) + int(h.Sum64()%3) - 1
			out[id] = map[string]any{"rationale": fmt.Sprintf("%d words", words), "score": max(1, min(5, s))}
		}
		content, _ := json.Marshal(out)
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-judge", "object": "chat.completion", "created": 0,
			"model": req.Model, "choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestRaceStopsTheWorseVariantsEarly is issue 21's racing check: three
// variants whose judge scores separate them (the speaker's max_tokens),
// raced on 24 evaluation contexts, lose the two worse ones before the
// last round, spend fewer units than the full grid of the same sweep, and
// pick the full grid's winner.
func TestRaceStopsTheWorseVariantsEarly(t *testing.T) {
	policy := fakevllm.Start(t, fakevllm.Options{})
	spec := testspec.Write(t, `package spec

import "mascot.dev/experiments/personas"

name: "race"
datasets: test: {name: "esconv", path: "`+testspec.ESConv+`", limit: 24, seed: 1}
rosters: main: personas.emotional_support
endpoints: [!="judge"]: {urls: ["`+policy.URL()+`"], model: "Qwen/Qwen3-8B"}
endpoints: {director: {}, speaker: {}, user: {}}
endpoints: judge: {urls: ["`+lengthJudge(t)+`"], model: "judge"}
judges: rubric: {plugin: "rubric", endpoint: "judge", rubric_version: "paper_v1"}
stages: {
	eval: {kind: "episodes", mode: "eval", dataset: "test", roster: "main", turns: 2}
	judge: {kind: "judge", items: "eval", level: "agent", judges: ["rubric"]}
}
sweep: {
	axes: "stages.eval.sampling.max_tokens": [3, 8, 40]
	max_parallel: 3
	show: ["overall"]
}
`)
	dir := t.TempDir()
	race := sweepJSON(t, "sweep", spec, "--db", filepath.Join(dir, "race.db"), "--runs-dir", filepath.Join(dir, "runs"),
		"--race", "--first", "4")
	full := sweepJSON(t, "sweep", spec, "--db", filepath.Join(dir, "full.db"), "--runs-dir", filepath.Join(dir, "runs"))
	rr := race.Race
	if rr == nil || rr.Contexts != 24 {
		t.Fatalf("race report %+v, want one over 24 contexts", rr)
	}
	best, bestV := "", -1.0
	for _, c := range full.Children {
		if v := c.Values["agent overall"]; v > bestV {
			best, bestV = c.Variant.Label(), v
		}
	}
	if best != `stages.eval.sampling.max_tokens=40` || rr.Winner != best {
		t.Errorf("full grid's best %s, race winner %s", best, rr.Winner)
	}
	if len(rr.Stopped) != 2 {
		t.Fatalf("%d variants stopped, want the 2 worse:\n%s", len(rr.Stopped), printed(race))
	}
	for _, s := range rr.Stopped {
		if s.Contexts >= 24 || !strings.Contains(s.Evidence, "CI") || s.Best != best {
			t.Errorf("variant %s stopped after %d contexts on %q against %s; want before 24, on a CI, against the best",
				s.Variant, s.Contexts, s.Evidence, s.Best)
		}
	}
	if race.Ran >= full.Ran {
		t.Errorf("the race ran %d units, the full grid %d", race.Ran, full.Ran)
	}
	// The winner's last round covers every context: its numbers are the
	// full evaluation's, the very values the full grid has.
	last := rr.Rounds[len(rr.Rounds)-1]
	if last.Contexts != 24 || len(last.Entries) != 1 {
		t.Errorf("last round %+v, want the winner alone on 24 contexts", last)
	}
	for i, c := range race.Children {
		if c.Variant.Label() == best && c.Values["agent overall"] != full.Children[i].Values["agent overall"] {
			t.Errorf("winner's overall %v in the race, %v in the full grid", c.Values["agent overall"], full.Children[i].Values["agent overall"])
		}
	}
	// Promotion reuses every unit: later rounds run only new contexts, so
	// the units ran equal the distinct units the race's runs hold.
	var distinct int
	s := openStore(t, filepath.Join(dir, "race.db"))
	defer s.Close()
	if err := s.Reader().QueryRow(`SELECT COUNT(*) FROM units WHERE state = 'done'`).Scan(&distinct); err != nil {
		t.Fatal(err)
	}
	if race.Ran != distinct {
		t.Errorf("the race ran %d units for %d distinct ones: a round reran what an earlier one had", race.Ran, distinct)
	}
	// Successive halving keeps the better half each round: the worst
	// after the first round, the second after the next, then the winner
	// on every context.
	halving := sweepJSON(t, "sweep", spec, "--db", filepath.Join(dir, "halving.db"), "--runs-dir", filepath.Join(dir, "runs"),
		"--halving", "--first", "4")
	hr := halving.Race
	if hr.Winner != best || len(hr.Stopped) != 2 || hr.Stopped[0].Round != 1 || hr.Stopped[1].Round != 2 ||
		!strings.Contains(hr.Stopped[0].Evidence, "halving keeps 2") || halving.Ran >= full.Ran {
		t.Errorf("halving: winner %s, stopped %+v, ran %d (full grid %d)\n%s", hr.Winner, hr.Stopped, halving.Ran, full.Ran, printed(halving))
	}
	// A budget stops the search between rounds and says what it left.
	budget := sweepJSON(t, "sweep", spec, "--db", filepath.Join(dir, "budget.db"), "--runs-dir", filepath.Join(dir, "runs"),
		"--race", "--first", "4", "--budget-units", "10")
	if br := budget.Race; !strings.Contains(br.Budget, "budget_units 10 reached") || len(br.Rounds) != 1 || len(br.Unfinished) != 1 {
		t.Errorf("budgeted race: budget %q, %d rounds, unfinished %v", br.Budget, len(br.Rounds), br.Unfinished)
	}
	requests := sweepJSON(t, "sweep", spec, "--db", filepath.Join(dir, "requests.db"), "--runs-dir", filepath.Join(dir, "runs"),
		"--race", "--first", "4", "--budget-requests", "20")
	if br := requests.Race; !strings.Contains(br.Budget, "budget_requests 20 reached") || br.Requests < 20 || len(br.Rounds) != 1 {
		t.Errorf("race on a request budget: budget %q after %d requests, %d rounds", br.Budget, br.Requests, len(br.Rounds))
	}
	if out := printed(race); !strings.Contains(out, "stopped:") || !strings.Contains(out, "race search on \"overall\"") {
		t.Errorf("printed race report:\n%s", out)
	}
	// The sweep's report keeps the account: `mascot report` of its parent,
	// as text and as a page, says which variants were stopped, after which
	// round and on what evidence.
	db := filepath.Join(dir, "race.db")
	text := mascot(t, "report", race.ParentID, "--db", db)
	page := mascot(t, "report", race.ParentID, "--db", db, "--format", "html")
	for _, s := range rr.Stopped {
		line := fmt.Sprintf("  %s after round %d (%d contexts): %s\n", s.Variant, s.Round, s.Contexts, s.Evidence)
		if !strings.Contains(text, "\nstopped:\n") || !strings.Contains(text, line) {
			t.Errorf("the race's report lacks %q:\n%s", line, text)
		}
		if !strings.Contains(page, html.EscapeString(line)) {
			t.Errorf("the race's HTML report lacks %q", line)
		}
	}
}

func sweepJSON(t *testing.T, args ...string) *runner.SweepSummary {
	t.Helper()
	var s runner.SweepSummary
	if err := json.Unmarshal([]byte(mascot(t, append(args, "--json")...)), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func printed(s *runner.SweepSummary) string {
	var b strings.Builder
	runner.PrintSweep(&b, s)
	return b.String()
}
