package slurm

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/tokenizer"
)

// TestSlurmServedEndpointReplicas: an endpoint of kind slurm-server makes
// `mascot run` submit two server jobs (`mascot serve` on a tiny model
// standing in for vLLM), use their published URLs as the replica pool of a
// locally executed candidates stage, and scancel them when the run ends.
func TestSlurmServedEndpointReplicas(t *testing.T) {
	needSlurm(t)
	t.Setenv("MASCOT_SERVER_HOST", "127.0.0.1")
	bin := mascotBinary(t)
	cfg := qwen3.Tiny()
	cfg.VocabSize = tokenizer.ByteLevelVocabSize
	cfg.MaxPositionEmbeddings = 8192
	m, err := qwen3.NewRandom(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "tiny")
	if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	if err := serve.WriteByteTokenizerMarker(model); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "spec.cue")
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/slurm-served"
datasets: es: {name: "esconv", path: %q, limit: 2}
rosters: main: personas.emotional_support
endpoints: speaker: {
	kind: "slurm-server", model: "tiny", sampling: max_tokens: 8
	server: {
		command: [%q, "serve", "--model", %q, "--addr", "127.0.0.1:$MASCOT_PORT", "--served-model-name", "tiny"]
		replicas: 2
	}
}
stages: cand: {kind: "candidates", dataset: "es", roster: "main", k: 2}
`, testspec.ESConv, bin, model)
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "m.db")
	runs := filepath.Join(dir, "runs")
	out, err := exec.Command(bin, "run", spec, "--db", db, "--runs-dir", runs, "--trace-role-calls").CombinedOutput()
	if err != nil {
		t.Fatalf("mascot run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "6 units ran, 0 cached, 0 failed") {
		t.Fatalf("unexpected run summary:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(runs, "*", "endpoints", "speaker", "*.json"))
	if len(files) != 0 {
		t.Errorf("endpoint files left after the run: %v", files)
	}
	q, err := exec.Command("squeue", "-h", "-o", "%j %T").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(q), "\n") {
		if strings.HasPrefix(line, "mascot-server-speaker") && !strings.Contains(line, "CANCELLED") && !strings.Contains(line, "COMPLET") {
			t.Errorf("server job still queued after the run: %s", line)
		}
	}
	sdb, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var replicas int
	if err := sdb.QueryRowContext(context.Background(), `SELECT COUNT(DISTINCT url) FROM llm_calls WHERE url != ''`).Scan(&replicas); err != nil {
		t.Fatal(err)
	}
	if replicas != 2 {
		t.Errorf("requests reached %d server jobs, want both replicas", replicas)
	}
}
