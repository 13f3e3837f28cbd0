package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"mascot.dev/mascot/plugins/builtin"
	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/spec"
)

// Level c: the built-ins run in a real binary through plugins/host. The
// binary is plugins/internal/testbin (`testbin plugin serve NAME`, which
// calls builtin.Serve as cmd/mascot does) and, when cmd/mascot has the
// `plugin serve` command, the mascot binary itself.
func binaries(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	tb := filepath.Join(dir, "testbin")
	if b, err := exec.Command("go", "build", "-o", tb, "mascot.dev/mascot/plugins/internal/testbin").CombinedOutput(); err != nil {
		t.Fatalf("building testbin: %v\n%s", err, b)
	}
	out["testbin"] = tb
	mb := filepath.Join(dir, "mascot")
	if b, err := exec.Command("go", "build", "-o", mb, "mascot.dev/mascot/cmd/mascot").CombinedOutput(); err != nil {
		t.Logf("cmd/mascot does not build right now; testing testbin only:\n%.500s", b)
		return out
	}
	// Without the handshake cookie a supporting binary says it is a plugin.
	probe, _ := exec.Command(mb, "plugin", "serve", "self-bleu").CombinedOutput()
	if strings.Contains(string(probe), "this is a mascot plugin") {
		out["mascot"] = mb
	} else {
		t.Logf("cmd/mascot has no `plugin serve` yet (%q); testing testbin only", strings.TrimSpace(string(probe)))
	}
	return out
}

func TestBuiltinsInRealBinary(t *testing.T) {
	for label, bin := range binaries(t) {
		t.Run(label, func(t *testing.T) {
			testSelfBLEU(t, bin)
			testRubricMalformedAndKill(t, bin)
			testMarkers(t, bin)
		})
	}
}

func cfg(bin, name string) host.Config {
	return host.Config{Name: name, Command: bin, Args: []string{"plugin", "serve", name}, Stderr: os.Stderr}
}

func testSelfBLEU(t *testing.T, bin string) {
	ctx := context.Background()
	m, err := host.StartMetric(ctx, cfg(bin, "self-bleu"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ep := spec.Episode{ID: "e", Turns: []spec.Turn{
		{Role: "agent", Text: "the cat sat"}, {Role: "agent", Text: "the cat ran"}, {Role: "agent", Text: "a dog ran"}}}
	res, err := m.Compute(ctx, []spec.Episode{ep})
	if err != nil {
		t.Fatal(err)
	}
	// See textmetrics_test.go for the arithmetic.
	want := (math.Cbrt(1.0/30) + math.Cbrt(0.05) + math.Cbrt(1.0/600)) / 3
	if got := res.Values[0].Values["self_bleu"]; math.Abs(got-want) > 1e-12 {
		t.Fatalf("self_bleu = %v, want %v", got, want)
	}
}

// testMarkers runs the deterministic markers judge out of process: a
// candidate's scores arrive normalised by the host, the same twice, and an
// unknown option is refused with its path.
func testMarkers(t *testing.T, bin string) {
	ctx := context.Background()
	j, err := host.StartJudge(ctx, cfg(bin, "markers"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if ds, err := j.Configure(ctx, json.RawMessage(`{"temperature": 1}`)); err != nil || len(ds) == 0 || !strings.Contains(ds[0].String(), "temperature") {
		t.Fatalf("unknown option: diagnostics %v, err %v", ds, err)
	}
	if ds, err := j.Configure(ctx, json.RawMessage(`{"marker_target": 2}`)); err != nil || len(ds) > 0 {
		t.Fatalf("configure: %v %v", ds, err)
	}
	item := spec.Item{ID: "c", Kind: spec.KindCandidate, AgentName: "The Anchor", Persona: "The Anchor: calm, warm, grounding",
		Response: "Stay calm and warm t"}
	var first []spec.Score
	for range 2 {
		res, err := j.Score(ctx, []spec.Item{item})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Results[0]
		if r.Failed || len(r.Scores) != 3 {
			t.Fatalf("markers scored %+v", r)
		}
		// calm and warm are 2 of the target 2 markers: 5, normalised 100;
		// t is 1 fragment of 5 words: 1+4*4/5 = 4.2, normalised 80.
		if r.Scores[0].CriterionID != "persona_markers" || r.Scores[0].Normalized != 100 ||
			r.Scores[2].CriterionID != "well_formed" || math.Abs(r.Scores[2].Normalized-80) > 1e-9 {
			t.Fatalf("markers scores %+v", r.Scores)
		}
		if first != nil && !reflect.DeepEqual(first, r.Scores) {
			t.Fatalf("second scoring %+v, first %+v", r.Scores, first)
		}
		first = r.Scores
	}
}

// testRubricMalformedAndKill drives the rubric plugin against a loopback
// judge server: a malformed output voids its item, and killing the plugin
// while it waits on the model restarts it and completes the batch.
func testRubricMalformedAndKill(t *testing.T, bin string) {
	ctx := context.Background()
	var calls atomic.Int64
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		user := body.Messages[1].Content
		if strings.Contains(user, "BLOCK") && calls.Add(1) == 1 {
			close(block)         // tell the test the plugin is mid-batch
			<-r.Context().Done() // until the plugin process is killed
			return
		}
		content := `{"emotional_expressiveness":{"rationale":"r","score":4},"empathetic_support":{"rationale":"r","score":4},` +
			`"persona_consistency":{"rationale":"r","score":4},"response_relevance":{"rationale":"r","score":4},"social_contribution":{"rationale":"r","score":"5"}}`
		if strings.Contains(user, "MALFORMED") {
			content = "```json\n{\"emotional_expressiveness\": 4, \"empathetic_support\": 11}\n```"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}}})
	}))
	defer srv.Close()
	j, err := host.StartJudge(ctx, cfg(bin, "rubric"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	conf := fmt.Sprintf(`{"judges":[{"name":"j1","url":%q,"model":"m","max_retries":0}]}`, srv.URL+"/v1")
	if ds, err := j.Configure(ctx, json.RawMessage(conf)); err != nil || len(ds) > 0 {
		t.Fatalf("configure: %v %v", ds, err)
	}
	res, err := j.Score(ctx, []spec.Item{
		{ID: "ok", Kind: spec.KindCandidate, Response: "fine"},
		{ID: "bad", Kind: spec.KindCandidate, Response: "MALFORMED"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.AnnotationFailures != 1 || !res.Results[1].Failed || len(res.Results[1].Scores) != 0 || len(res.Results[1].RawOutputs) != 1 {
		t.Fatalf("malformed: %+v", res)
	}
	ok := res.Results[0]
	// 4 -> 100*(4-1)/4 = 75; "5" (a string) -> 100.
	if ok.Failed || ok.Scores[0].Normalized != 75 || ok.Scores[4].Normalized != 100 || ok.Scores[5].Judge != "" {
		t.Fatalf("ok item: %+v", ok)
	}

	go func() {
		<-block
		for _, pid := range children(bin) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	res, err = j.Score(ctx, []spec.Item{{ID: "k", Kind: spec.KindCandidate, Response: "BLOCK"}})
	if err != nil {
		t.Fatal(err)
	}
	if j.Restarts() != 1 || res.Results[0].Failed || len(res.Results[0].Scores) != 10 {
		t.Fatalf("after kill: restarts=%d %+v", j.Restarts(), res.Results[0])
	}
}

// children lists this process's child processes running bin.
func children(bin string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	me := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if ppid, _ := strconv.Atoi(f[1]); ppid != me {
			continue
		}
		if exe, _ := os.Readlink("/proc/" + e.Name() + "/exe"); exe == bin {
			out = append(out, pid)
		}
	}
	return out
}

func TestServeUnknownAndNames(t *testing.T) {
	if err := builtin.Serve("nope"); err == nil || !strings.Contains(err.Error(), "have distinct-n, markers, nli-contradiction, rubric, self-bleu") {
		t.Fatalf("err = %v", err)
	}
	for _, n := range builtin.Names() {
		if builtin.Kind(n) == "" {
			t.Fatalf("%s has no kind", n)
		}
	}
	// Not under a host: a clear error instead of go-plugin's exit.
	if err := builtin.Serve("self-bleu"); err == nil || !strings.Contains(err.Error(), "started by mascot") {
		t.Fatalf("err = %v", err)
	}
}
