package slurm

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildOut  []byte
)

// mascotBinary builds cmd/mascot once per test binary.
func mascotBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mascot-slurm-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "mascot")
		buildOut, buildErr = exec.Command("go", "build", "-o", builtBin, "mascot.dev/mascot/cmd/mascot").CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building mascot: %v\n%s", buildErr, buildOut)
	}
	return builtBin
}

// trainSpec is a cut-down demo: a tiny pretrain stage whose model the
// built-in engine serves to an eval episodes stage, and a report. The
// executor defaults to local; --set executor.kind=slurm moves it.
func trainSpec(t *testing.T) string {
	t.Helper()
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/slurm-train"
seed: 7
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 2}
rosters: main: personas.emotional_support
endpoints: [_]: {kind: "builtin", model: "mascot-tiny", model_stage: "pretrain", concurrency: 2, sampling: max_tokens: 12}
endpoints: {speaker: _, director: _, user: _}
executor: kind: *"local" | string
stages: {
	pretrain: {kind: "pretrain", text: "embed:demo/data/pretrain.txt", max_steps: 20, batch_size: 4, max_length: 32,
		model: {hidden_size: 32, intermediate_size: 64, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 8}}
	eval: {kind: "episodes", mode: "eval", dataset: "es", roster: "main", turns: 2}
	report: {kind: "report", inputs: ["eval"]}
}
`
	return testspec.Write(t, src)
}

// mascotRun runs the real CLI and returns the database and runs dir.
func mascotRun(t *testing.T, args ...string) (db, runs string) {
	t.Helper()
	dir := t.TempDir()
	db, runs = filepath.Join(dir, "m.db"), filepath.Join(dir, "runs")
	cmd := exec.Command(mascotBinary(t), append(args, "--db", db, "--runs-dir", runs)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mascot %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return db, runs
}

func queryStrings(t *testing.T, db, q string) []string {
	t.Helper()
	s, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.Reader().Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.String)
	}
	sort.Strings(out)
	return out
}

// TestSlurmTrainingPipelineMatchesLocal runs the cut-down demo through
// the real CLI locally and with --set executor.kind=slurm: same done-unit
// fingerprints, the pretrained model lands in the controller's run
// directory (where its artifact row points, and where the eval job's
// engine loaded it from), the shards' counters are in the controller's
// database, and the report (a Finisher) ran once, on the controller.
func TestSlurmTrainingPipelineMatchesLocal(t *testing.T) {
	needSlurm(t)
	spec := trainSpec(t)
	ldb, _ := mascotRun(t, "run", spec)
	sdb, sruns := mascotRun(t, "run", spec, "--set", "executor.kind=slurm")
	q := `SELECT fingerprint FROM units WHERE state = 'done'`
	if a, b := queryStrings(t, ldb, q), queryStrings(t, sdb, q); strings.Join(a, ",") != strings.Join(b, ",") || len(a) != 4 {
		t.Fatalf("done units differ:\nlocal %v\nslurm %v", a, b)
	}
	runDirs := queryStrings(t, sdb, `SELECT id FROM runs`)
	if len(runDirs) != 1 {
		t.Fatalf("runs in the slurm database: %v", runDirs)
	}
	runDir := filepath.Join(sruns, runDirs[0])
	arts := queryStrings(t, sdb, `SELECT path FROM artifacts WHERE kind = 'model'`)
	if len(arts) != 1 || arts[0] != mustAbs(t, filepath.Join(runDir, "pretrain")) {
		t.Fatalf("model artifact at %v, want %s", arts, filepath.Join(runDir, "pretrain"))
	}
	if _, err := os.Stat(filepath.Join(arts[0], "model.safetensors")); err != nil {
		t.Fatalf("the model is not where its artifact points: %v", err)
	}
	lc := queryStrings(t, ldb, `SELECT stage_key || '.' || name || '=' || value FROM counters WHERE stage_key = 'eval'`)
	sc := queryStrings(t, sdb, `SELECT stage_key || '.' || name || '=' || value FROM counters WHERE stage_key = 'eval'`)
	if strings.Join(lc, ",") != strings.Join(sc, ",") || !strings.Contains(strings.Join(sc, ","), "eval.num_episodes=2") {
		t.Fatalf("counters differ:\nlocal %v\nslurm %v", lc, sc)
	}
	// Latency histograms: every request of the shards is in the controller's
	// buckets (bounds differ with timing; the number of requests per role does not).
	lq := `SELECT role || '=' || SUM(n) FROM llm_latency WHERE stage_key = 'eval' GROUP BY role`
	if a, b := queryStrings(t, ldb, lq), queryStrings(t, sdb, lq); strings.Join(a, ",") != strings.Join(b, ",") || len(a) == 0 {
		t.Fatalf("latency requests per role differ:\nlocal %v\nslurm %v", a, b)
	}
	if _, err := os.Stat(filepath.Join(runDir, "report.md")); err != nil {
		t.Fatalf("the report did not finish on the controller: %v", err)
	}
	// Case 2, controller-owned DAG: each child was submitted only after
	// its parent's job had ended (its exitcode file written) and its units
	// were done in SQLite.
	chain := []string{"pretrain", "eval", "report"}
	var prevEnd time.Time
	for i, stage := range chain {
		m, _ := filepath.Glob(filepath.Join(sruns, "slurm", stage+"-*"))
		if len(m) != 1 {
			t.Fatalf("state dirs of %s: %v", stage, m)
		}
		as, err := loadAttempts(m[0])
		if err != nil || len(as) != 1 {
			t.Fatalf("attempts of %s: %v %v", stage, as, err)
		}
		if i > 0 && !as[0].Submitted.After(prevEnd) {
			t.Fatalf("%s submitted at %v, before its parent %s ended at %v", stage, as[0].Submitted, chain[i-1], prevEnd)
		}
		prevEnd = time.Time{}
		for j := range as[0].Shards {
			st, err := os.Stat(filepath.Join(as[0].ShardDir(j), "exitcode"))
			if err != nil {
				t.Fatal(err)
			}
			if st.ModTime().After(prevEnd) {
				prevEnd = st.ModTime()
			}
		}
		done := queryStrings(t, sdb, `SELECT MAX(done_at) FROM units WHERE stage_key = '`+stage+`'`)
		if i+1 < len(chain) && (len(done) != 1 || done[0] == "") {
			t.Fatalf("no done_at for %s", stage)
		}
	}
	// No shard ran the report's Finish (it writes report.md into its run dir).
	if m, _ := filepath.Glob(filepath.Join(sruns, "slurm", "report-*", "attempt-*", "shards", "*", "runs", "*", "report.md")); len(m) != 0 {
		t.Fatalf("a shard ran Finish: %v", m)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
