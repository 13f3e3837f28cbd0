package python_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/candidates"
	_ "mascot.dev/mascot/runner/stages/judge"
)

// TestPythonJudgeInSpec runs an experiment whose judge is the Python
// script, named by `command` and pinned by `sha256`: candidates from a fake
// vLLM, judged by lengthjudge.py. Every candidate gets the conciseness score
// its word count implies.
func TestPythonJudgeInSpec(t *testing.T) {
	t.Setenv("PYTHONPATH", stubs(t)) // passed on because the judge's env names it
	exe := script(t)
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	pin := sha256.Sum256(b)
	srv := fakevllm.Start(t, fakevllm.Options{})
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/python-judge"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 2}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + srv.URL() + `"], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s"}
judges: concise: {plugin: "lengthjudge-py", command: ["` + exe + `"], sha256: "` + hex.EncodeToString(pin[:]) + `",
	env: ["PYTHONPATH"], options: target_words: 12}
stages: {
	cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
	judged: {kind: "judge", items: "cand", judges: ["concise"]}
}
`
	l := testspec.Load(t, src)
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store,
		RunsDir: t.TempDir(), Registry: runner.Default}); err != nil {
		t.Fatalf("run: %v", err)
	}

	rows, err := store.Reader().Query(`SELECT c.text, j.score, j.scale_min, j.scale_max, j.rubric_version
		FROM candidates c LEFT JOIN judgments j ON j.candidate_id = c.id AND j.judge = 'concise' AND j.criterion = 'conciseness'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var text string
		var score, lo, hi *float64
		var rubric *string
		if err := rows.Scan(&text, &score, &lo, &hi, &rubric); err != nil {
			t.Fatal(err)
		}
		n++
		// The rule of lengthjudge.py, recomputed here.
		want := math.Max(1, 5-2*math.Abs(math.Log2(float64(len(strings.Fields(text)))/12)))
		if score == nil || math.Abs(*score-want) > 1e-9 || *lo != 1 || *hi != 5 || *rubric != "length_v1" {
			t.Errorf("candidate %q: judgment %v, want score %g on 1..5 (length_v1)", text, score, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 2*3*2 { // 2 contexts x 3 personas x K=2
		t.Fatalf("%d candidates, want 12", n)
	}
}
