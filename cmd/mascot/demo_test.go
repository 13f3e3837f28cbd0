package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/cmd/mascot/cli"
	"mascot.dev/mascot/internal/testgate"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/web"
)

// TestDemoEndToEnd runs `mascot run demo` — the README's main job — from an
// empty directory, then again: the second run executes zero units, says so,
// and takes under 10 % of the first run's time. The demo learns: both
// reward models rank at least 80 % of the pairs of their held-out queries
// right, speaker GRPO and director GRPO raise the reward of held-out
// prompts (conversation states, for the Director, rolled out to whole
// conversations) with the 95 % bootstrap interval of the paired
// difference above 0 (`results show --json`, and the report's lines), and
// the episode stages' Director answered (no random-agent fallback for want
// of a directive).
func TestDemoEndToEnd(t *testing.T) {
	testgate.Long(t, "the full demo twice: minutes and gigabytes on 2 cores")
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	run := func() (string, time.Duration) {
		var out, errb bytes.Buffer
		start := time.Now()
		code := cli.Run(context.Background(), []string{"run", "demo"}, &out, &errb)
		took := time.Since(start)
		if code != 0 {
			t.Fatalf("mascot run demo: exit %d\n%s\n%s", code, out.String(), lastLines(errb.String(), 40))
		}
		return out.String(), took
	}
	first, took1 := run()
	t.Logf("first run: %s", took1)
	checkArtifactFolders(t, filepath.Join(wd, "..", ".."), dir, first)
	for _, want := range []string{"Per-agent criteria", "Collective criteria", "Overall", "self_bleu", "database: mascot.db"} {
		if !bytes.Contains([]byte(first), []byte(want)) {
			t.Errorf("demo output lacks %q:\n%s", want, first)
		}
	}
	m := regexp.MustCompile(`speaker_grpo\s+reward\s+(-?[0-9.]+) ->\s+(-?[0-9.]+)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("report shows no held-out reward for speaker_grpo:\n%s", first)
	}
	before, _ := strconv.ParseFloat(m[1], 64)
	after, _ := strconv.ParseFloat(m[2], 64)
	if !(after > before) {
		t.Errorf("speaker held-out reward did not rise under GRPO: %.4f -> %.4f", before, after)
	}
	checkDemoLearns(t)
	checkDirectorAnswered(t, filepath.Join(dir, "mascot.db"))
	if _, err := os.Stat(filepath.Join(dir, "mascot.db")); err != nil {
		t.Fatal(err)
	}
	second, took2 := run()
	t.Logf("second run: %s", took2)
	if !regexp.MustCompile(`— 0 units ran, [0-9]+ cached, 0 failed`).MatchString(second) ||
		!bytes.Contains([]byte(second), []byte("nothing to do")) {
		t.Errorf("second run did work or did not say so:\n%s", lastLines(second, 8))
	}
	if took2 > took1/10 {
		t.Errorf("second run took %s, more than 10%% of the first (%s)", took2, took1)
	}
	checkViewerOnDemo(t, filepath.Join(dir, "mascot.db"))
}

// checkDemoLearns reads the held-out evaluation of the demo's training
// stages from `results show latest --json` and holds them to the demo's
// claims.
func checkDemoLearns(t *testing.T) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"results", "show", "latest", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("results show: exit %d\n%s", code, errb.String())
	}
	var d struct {
		Stages []struct {
			Key     string           `json:"key"`
			Heldout *results.Heldout `json:"heldout"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	held := map[string]*results.Heldout{}
	for _, s := range d.Stages {
		held[s.Key] = s.Heldout
	}
	for _, k := range []string{"persona_rm", "group_rm"} {
		h := held[k]
		if h == nil || h.Accuracy == nil {
			t.Errorf("%s has no held-out accuracy", k)
			continue
		}
		t.Logf("%s: held-out accuracy %.3f, loss %.4f on %d pairs", k, *h.Accuracy, *h.Loss, h.Pairs)
		if *h.Accuracy < 0.8 || h.Pairs < 20 {
			t.Errorf("%s: held-out accuracy %.3f on %d pairs, want at least 0.80 on 20 or more", k, *h.Accuracy, h.Pairs)
		}
	}
	for _, k := range []string{"speaker_grpo", "director_grpo"} {
		h := held[k]
		if h == nil || h.RewardBefore == nil || h.RewardAfter == nil || len(h.RewardDeltaCI) != 2 {
			t.Errorf("%s has no held-out reward with an interval: %+v", k, h)
			continue
		}
		t.Logf("%s: held-out reward %.4f -> %.4f, 95%% CI of the difference [%.4f, %.4f] over %d prompts", k,
			*h.RewardBefore, *h.RewardAfter, h.RewardDeltaCI[0], h.RewardDeltaCI[1], h.Prompts)
	}
	for _, k := range []string{"speaker_grpo", "director_grpo"} {
		if h := held[k]; h != nil && len(h.RewardDeltaCI) == 2 && !(h.RewardDeltaCI[0] > 0) {
			t.Errorf("%s: 95%% CI of the held-out reward gain [%.4f, %.4f] does not lie above 0",
				k, h.RewardDeltaCI[0], h.RewardDeltaCI[1])
		}
	}
}

// checkDirectorAnswered reads the run's counters: every Director request
// succeeded, so no turn of the demo's conversations was left to the
// random-agent fallback for want of a directive.
func checkDirectorAnswered(t *testing.T, db string) {
	t.Helper()
	store, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	runs, err := store.ListRuns(ctx, results.RunFilter{})
	if err != nil || len(runs) == 0 {
		t.Fatalf("no run (%v)", err)
	}
	c, err := store.RunCounters(ctx, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("director: %d requests, %d failed, %d random-agent fallbacks", c["llm.director.requests"], c["llm.director.failures"], c["num_random_agent_fallbacks"])
	if c["llm.director.requests"] == 0 || c["llm.director.failures"] != 0 || c["num_random_agent_fallbacks"] != 0 {
		t.Errorf("the Director did not answer every request: %d requests, %d failed, %d random-agent fallbacks",
			c["llm.director.requests"], c["llm.director.failures"], c["num_random_agent_fallbacks"])
	}
}

// checkViewerOnDemo renders every page of the web viewer on the database
// the demo produced.
func checkViewerOnDemo(t *testing.T, db string) {
	t.Helper()
	store, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// The viewer answers only its own address (DNS-rebinding protection).
	const host = "127.0.0.1:8080"
	h, err := web.NewHandler(store, web.Options{Resample: 200, Hosts: []string{host}, Patience: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := store.ListRuns(context.Background(), results.RunFilter{Sort: "started", Asc: true})
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs (%v), want the demo's 2", len(runs), err)
	}
	a, b := runs[0].ID, runs[1].ID
	var eid int64
	if err := store.Reader().QueryRow(`SELECT e.id FROM episodes e JOIN run_units ru ON ru.fingerprint = e.unit_fp
		WHERE ru.run_id = ? AND ru.stage_key = 'eval' LIMIT 1`, a).Scan(&eid); err != nil {
		t.Fatalf("no eval episode: %v", err)
	}
	var ctxID string
	_ = store.Reader().QueryRow(`SELECT context_id FROM candidates LIMIT 1`).Scan(&ctxID)
	pages := map[string]string{
		"/":                        "demo",
		"/runs/" + a:               "judge_eval_agent",
		"/runs/" + a + "/episodes": "mascot",
		"/episodes/" + strconv.FormatInt(eid, 10) + "?run=" + a: "The ",
		"/runs/" + a + "/candidates?context=" + ctxID:           "The ",
		"/runs/" + a + "/training":                              "heldout.accuracy",
		"/runs/" + a + "/report":                                "Overall",
		"/compare?a=" + a + "&b=" + b:                           "Overall",
		"/rate":                                                 "form",
	}
	for path, want := range pages {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		req.Host = host
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Errorf("GET %s: %d\n%s", path, rec.Code, lastLines(rec.Body.String(), 5))
			continue
		}
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET %s lacks %q", path, want)
		}
	}
}

func lastLines(s string, n int) string {
	lines := bytes.Split([]byte(s), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
