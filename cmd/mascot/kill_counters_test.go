package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/sqlrows"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
)

// killSpec is an experiment with candidates, evaluation episodes
// (director, speaker and user) and a rubric judge of the episodes, every
// role on one fake vLLM server that fails 5% of its requests (retried).
func killSpec(t *testing.T, dir, url string) string {
	t.Helper()
	spec := filepath.Join(dir, "spec.cue")
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/kill-counters"
datasets: train: {name: "esconv", path: %[1]q, limit: 4, seed: 1}
datasets: test: {name: "esconv", path: %[1]q, limit: 4, seed: 2, exclude: ["train"]}
rosters: support: personas.emotional_support
endpoints: [_]: {urls: [%[2]q], model: "Qwen/Qwen3-8B", concurrency: 3, supports_n: false, retries: 3, timeout: "10s"}
endpoints: {director: {}, speaker: {}, user: {}, judge: {}}
judges: rubric: {plugin: "rubric", endpoint: "judge", rubric_version: "paper_v1"}
stages: cand: {kind: "candidates", dataset: "train", roster: "support", k: 3}
stages: eval: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", turns: 3, after: ["cand"]}
stages: judge: {kind: "judge", items: "eval", level: "agent", judges: ["rubric"]}
`, testspec.ESConv, url)
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestKillCountersMatchTheServer SIGKILLs `mascot run` at five random
// points, resumes it to completion, and reconciles the database with the
// fake server's own per-request log:
//   - the result rows equal those of an uninterrupted run;
//   - the attempts counted over all runs are the requests the server
//     received (every one carries the X-Request-Id it was recorded under),
//     plus any recorded at a kill and never sent;
//   - the tokens counted are the server's, less the usage of the requests
//     in flight at the kills (recorded, never settled, marked lost), and
//     lost_in_flight counts those;
//   - the requests the committed work made equal the clean run's.
func TestKillCountersMatchTheServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mascot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building mascot: %v\n%s", err, out)
	}
	opts := fakevllm.Options{Latency: fakevllm.Latency{Base: 120 * time.Millisecond, Jitter: 80 * time.Millisecond},
		Faults: fakevllm.Faults{ServerError: 0.05}, Seed: 3}
	cleanSrv, killSrv := fakevllm.Start(t, opts), fakevllm.Start(t, opts)
	dir := t.TempDir()
	run := func(spec, db string) *exec.Cmd {
		c := exec.Command(bin, "run", spec, "--db", db, "--runs-dir", filepath.Join(dir, "runs"))
		c.Dir = dir
		return c
	}
	cleanDir, killDir := filepath.Join(dir, "clean"), filepath.Join(dir, "killed")
	for _, d := range []string{cleanDir, killDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cleanDB, killDB := filepath.Join(dir, "clean.db"), filepath.Join(dir, "killed.db")
	began := time.Now()
	if out, err := run(killSpec(t, cleanDir, cleanSrv.URL()), cleanDB).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	cleanTime := time.Since(began)

	spec := killSpec(t, killDir, killSrv.URL())
	rng := rand.New(rand.NewSource(5))
	kills := 0
	for attempt := 0; kills < 5 && attempt < 40; attempt++ {
		c := run(spec, killDB)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		// Soon enough that work is left after the earlier kills: somewhere
		// in the first sixth of what a clean run takes, after the process
		// has started.
		at := 400*time.Millisecond + time.Duration(rng.Int63n(int64(cleanTime/6)))
		select {
		case <-time.After(at):
			_ = c.Process.Kill() // SIGKILL
			<-done
			kills++
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d failed on its own: %v", attempt, err)
			}
			t.Logf("run %d finished before its kill at %v", attempt, at)
		}
	}
	if kills < 5 {
		t.Fatalf("only %d kills landed mid-run (a clean run takes %v)", kills, cleanTime)
	}
	if out, err := run(spec, killDB).CombinedOutput(); err != nil {
		t.Fatalf("final resume: %v\n%s", err, out)
	}

	clean, killed := resultRows(t, cleanDB), resultRows(t, killDB)
	if len(clean) < 40 {
		t.Fatalf("the clean run has only %d result rows", len(clean))
	}
	if strings.Join(clean, "\n") != strings.Join(killed, "\n") {
		t.Fatalf("result rows differ after %d kills: clean %d, killed %d", kills, len(clean), len(killed))
	}

	ctx := context.Background()
	store, err := results.Open(killDB)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	lost, err := store.LostAttempts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lostSet := map[string]bool{}
	for _, id := range lost {
		lostSet[id] = true
	}
	log := killSrv.Log()
	var srvIn, srvOut, lostIn, lostOut int64
	seen := map[string]bool{}
	for _, e := range log {
		if e.RequestID == "" || seen[e.RequestID] {
			t.Fatalf("server log entry %+v: every attempt must carry its own recorded X-Request-Id", e)
		}
		seen[e.RequestID] = true
		srvIn, srvOut = srvIn+int64(e.PromptTokens), srvOut+int64(e.CompletionTokens)
		if lostSet[e.RequestID] {
			lostIn, lostOut = lostIn+int64(e.PromptTokens), lostOut+int64(e.CompletionTokens)
		}
	}
	neverSent := 0
	for _, id := range lost {
		if !seen[id] {
			neverSent++
		}
	}
	got := sumCounters(t, killDB)
	want := sumCounters(t, cleanDB)
	t.Logf("clean run %v; %d kills: server received %d requests (%d/%d tokens); %d lost in flight (%d never reached it, %d/%d tokens); "+
		"db counts %d attempts, %d/%d tokens, %d reused, %d cache hits, %d requests (clean run: %d)", cleanTime.Round(time.Millisecond), kills, len(log),
		srvIn, srvOut, len(lost), neverSent, lostIn, lostOut, got["attempts"], got["tokens_in"], got["tokens_out"],
		got["reused"], got["cache_hits"], got["requests"], want["requests"])
	if got["attempts"] != int64(len(log)+neverSent) {
		t.Errorf("attempts counted %d, the server received %d (+%d recorded and never sent)", got["attempts"], len(log), neverSent)
	}
	if neverSent > kills*3 {
		t.Errorf("%d attempts recorded and never sent, more than the %d the kills could leave", neverSent, kills*3)
	}
	if got["tokens_in"] != srvIn-lostIn || got["tokens_out"] != srvOut-lostOut {
		t.Errorf("tokens counted %d/%d, want the server's %d/%d less the %d/%d of the requests lost in flight",
			got["tokens_in"], got["tokens_out"], srvIn, srvOut, lostIn, lostOut)
	}
	if got["lost_in_flight"] != int64(len(lost)) {
		t.Errorf("lost_in_flight counts %d, %d attempts are marked lost", got["lost_in_flight"], len(lost))
	}
	if got["requests"] != want["requests"] {
		t.Errorf("the committed work made %d requests, the clean run %d", got["requests"], want["requests"])
	}
	if c := cleanSrv.Log(); want["attempts"] != int64(len(c)) || want["lost_in_flight"] != 0 {
		t.Errorf("clean run counts %d attempts (%d lost), its server received %d", want["attempts"], want["lost_in_flight"], len(c))
	}
	if want["tokens_in"] != cleanSrv.Counters().TokensIn {
		t.Errorf("clean run counts %d prompt tokens, its server %d", want["tokens_in"], cleanSrv.Counters().TokensIn)
	}
}

// resultRows lists a database's done units and result rows in a stable
// order, without ids and times.
func resultRows(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	for _, q := range []string{
		`SELECT 'unit', fingerprint, stage_key FROM units WHERE state = 'done'`,
		`SELECT 'candidate', unit_fp, persona || '#' || sample_idx, text FROM candidates`,
		`SELECT 'turn', e.unit_fp, e.idx || '#' || t.turn_idx || '#' || t.agent_name, t.response FROM turns t JOIN episodes e ON e.id = t.episode_id`,
		`SELECT 'judgment', j.unit_fp, j.judge || '#' || j.criterion || '#' || COALESCE(t.turn_idx, -1), j.score FROM judgments j LEFT JOIN turns t ON t.id = j.turn_id`,
	} {
		out = append(out, sqlrows.Lines(t, db, q)...)
	}
	sort.Strings(out)
	return out
}

// sumCounters sums a database's LLM counters over every run and role, by
// the counter's last name part (attempts, tokens_in, ...).
func sumCounters(t *testing.T, path string) map[string]int64 {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name, value FROM counters WHERE name LIKE 'llm.%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		out[name[strings.LastIndexByte(name, '.')+1:]] += v
	}
	return out
}
