package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// candidatesSpec writes a candidates experiment (3 contexts x 3
// personas = 9 units) against a fake vLLM and returns its path.
func candidatesSpec(t *testing.T) string {
	t.Helper()
	url := fakevllm.Start(t, fakevllm.Options{}).URL()
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/stage-exec"
datasets: es: {name: "esconv", path: "embed:demo/data/esconv.json", limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + url + `"], model: "Qwen/Qwen3-8B", retries: 1, timeout: "30s"}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
`
	return testspec.Write(t, src)
}

// stageExecFixture leaves the candidates experiment as a controller
// leaves it for its jobs: the run's run_config.json and a snapshot of its
// (empty) database. It returns both paths and the run directory.
func stageExecFixture(t *testing.T) (spec, input, runDir string) {
	t.Helper()
	l, err := schema.Load(candidatesSpec(t), runner.Default.Kinds(), schema.Options{})
	must(t, err)
	dir := t.TempDir()
	runDir = filepath.Join(dir, "runs", "run-1")
	must(t, os.MkdirAll(runDir, 0o755))
	spec = filepath.Join(runDir, "run_config.json")
	must(t, os.WriteFile(spec, l.Canonical, 0o644))
	st, err := results.Open(filepath.Join(dir, "m.db"))
	must(t, err)
	defer st.Close()
	input = filepath.Join(dir, "input.db")
	must(t, results.Snapshot(context.Background(), st, input))
	return spec, input, runDir
}

// stageExec runs `mascot stage-exec` with args and returns the done
// units of its shard database, sorted.
func stageExec(t *testing.T, out string, args ...string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), append([]string{"stage-exec", "--out", out}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("mascot stage-exec %v: exit %d\n%s", args, code, stderr.String())
	}
	st, err := results.Open(filepath.Join(out, "shard.db"))
	must(t, err)
	defer st.Close()
	rows, err := st.Reader().Query(`SELECT fingerprint FROM units WHERE state = 'done' AND stage_key = 'cand'`)
	must(t, err)
	defer rows.Close()
	var fps []string
	for rows.Next() {
		var fp string
		must(t, rows.Scan(&fp))
		fps = append(fps, fp)
	}
	must(t, rows.Err())
	sort.Strings(fps)
	if _, err := os.Stat(filepath.Join(out, "counters.json")); err != nil {
		t.Fatalf("the shard wrote no counters: %v", err)
	}
	return fps
}

// TestStageExecRunsItsShardOnly runs the command a Slurm job runs, in both
// of its modes: detached (--shards, the job lists the stage's units and
// keeps those that hash to its shard) and listed (--units), and checks
// each job ran exactly its share.
func TestStageExecRunsItsShardOnly(t *testing.T) {
	spec, input, runDir := stageExecFixture(t)
	dir := t.TempDir()
	common := []string{"--spec", spec, "--stage", "cand", "--input", input, "--run-dir", runDir}
	var all []string
	for shard := range 2 {
		fps := stageExec(t, filepath.Join(dir, "part-"+strconv.Itoa(shard)),
			append(common, "--shards", "2", "--shard", strconv.Itoa(shard))...)
		for _, fp := range fps {
			if runner.ShardOf(fp, 2) != shard {
				t.Fatalf("shard %d ran unit %s of shard %d", shard, fp, runner.ShardOf(fp, 2))
			}
		}
		all = append(all, fps...)
	}
	sort.Strings(all)
	if n := len(slices.Compact(slices.Clone(all))); len(all) != 9 || n != 9 {
		t.Fatalf("the two detached shards ran %d units (%d distinct), want the stage's 9", len(all), n)
	}
	// Listed mode: shard 1 of [[a, b], [c, d, e]] runs c, d and e only.
	units := filepath.Join(dir, "units.json")
	b, err := json.Marshal([][]string{all[:2], all[2:5]})
	must(t, err)
	must(t, os.WriteFile(units, b, 0o644))
	got := stageExec(t, filepath.Join(dir, "listed"), append(common, "--units", units, "--shard", "1")...)
	if strings.Join(got, ",") != strings.Join(all[2:5], ",") {
		t.Fatalf("listed shard ran %v, want %v", got, all[2:5])
	}
	// A shard outside the stage's is invalid input.
	var stderr bytes.Buffer
	args := append([]string{"stage-exec", "--out", filepath.Join(dir, "bad")}, append(common, "--shards", "2", "--shard", "2")...)
	if code := Run(context.Background(), args, &bytes.Buffer{}, &stderr); code != 2 {
		t.Fatalf("--shard 2 of 2: exit %d, want 2\n%s", code, stderr.String())
	}
}
