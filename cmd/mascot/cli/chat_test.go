package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
)

// chatFixture runs a small experiment (two eval episodes stages, mascot
// and zero-shot, over the demo's ESConv data) against a fake vLLM and
// returns the database and the run id. It is the cheapest honest run: the
// real runner, real HTTP, real SQLite; only the model is fake.
func chatFixture(t *testing.T, url string) (db, runID string) {
	t.Helper()
	if url == "" {
		url = fakevllm.Start(t, fakevllm.Options{}).URL()
	}
	ep := `{urls: ["` + url + `"], model: "Qwen/Qwen3-8B", retries: 1, timeout: "30s"}`
	spec := `package spec

import "mascot.dev/experiments/personas"

name: "test/chat"
seed: 3
datasets: es: {name: "esconv", path: "embed:demo/data/esconv.json", limit: 2}
rosters: support: personas.emotional_support
endpoints: director: ` + ep + `
endpoints: speaker: ` + ep + `
endpoints: user: ` + ep + `
endpoints: judge: ` + ep + `
judges: rubric: {plugin: "rubric", endpoint: "judge"}
stages: {
	eval: {kind: "episodes", mode: "eval", dataset: "es", roster: "support", system: "mascot", turns: 1}
	zs: {kind: "episodes", mode: "eval", dataset: "es", roster: "support", system: "zero-shot", turns: 1}
}
`
	dir := t.TempDir()
	path := filepath.Join(dir, "chat.cue")
	must(t, os.WriteFile(path, []byte(spec), 0o644))
	db = filepath.Join(dir, "m.db")
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"run", path, "--db", db, "--runs-dir", filepath.Join(dir, "runs")}, &out, &errb); code != 0 {
		t.Fatalf("mascot run: exit %d\n%s", code, errb.String())
	}
	st, err := results.Open(db)
	must(t, err)
	defer st.Close()
	run, err := st.ResolveRun(context.Background(), "latest")
	must(t, err)
	return db, run.ID
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// runChat runs mascot chat with stdin and returns stdout.
func runChat(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetArgs(append([]string{"chat"}, args...))
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errb)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("mascot chat %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errb.String())
	}
	return out.String()
}

// TestChatScripted drives mascot chat from stdin against a finished run and
// checks the stored episode: the person's turns marked human, the agents'
// turns by roster agents with their directives, /undo honoured.
func TestChatScripted(t *testing.T) {
	db, runID := chatFixture(t, "")
	out := runChat(t, "/who\n/directive\nI failed my driving test today.\n/undo\nI passed my driving test!\nThanks, that helps.\n/save\n",
		"latest", "--db", db)
	t.Log(out)
	for _, want := range []string{"system mascot of run " + runID, "The Anchor", "directives shown",
		"undone; 0 turns left", "directive: Agent=", "saved as episode", "stored as episode"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
	st, err := results.Open(db)
	must(t, err)
	defer st.Close()
	ctx := context.Background()
	var id int64
	must(t, st.Reader().QueryRow(`SELECT e.id FROM episodes e JOIN run_units ru ON ru.fingerprint = e.unit_fp
		WHERE ru.run_id = ? AND ru.stage_key = 'chat' AND e.mode = 'chat'`, runID).Scan(&id))
	e, err := st.GetEpisode(ctx, id)
	must(t, err)
	if e.System != "mascot" || e.Dataset != "chat" || len(e.Turns) != 4 {
		t.Fatalf("stored episode: system %s dataset %s, %d turns; want mascot, chat, 4", e.System, e.Dataset, len(e.Turns))
	}
	roster := map[string]bool{}
	for _, n := range []string{"The Anchor", "The Catalyst", "The Beacon"} {
		roster[n] = true
	}
	for i, tu := range e.Turns {
		if human := i%2 == 0; human != results.IsHuman(tu) || human != (tu.TurnType == "user") {
			t.Errorf("turn %d: human=%v type %q, want human=%v", i, results.IsHuman(tu), tu.TurnType, human)
		}
		if i%2 == 1 && (!roster[tu.AgentName] || tu.Directive == nil || tu.Directive.AgentName != tu.AgentName) {
			t.Errorf("turn %d: agent %q directive %+v; want a roster agent named by its directive", i, tu.AgentName, tu.Directive)
		}
	}
	if e.Turns[0].Response != "I passed my driving test!" {
		t.Errorf("first turn %q: /undo did not take back the first message", e.Turns[0].Response)
	}
}
