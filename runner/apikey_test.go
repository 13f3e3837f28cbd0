package runner_test

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/transfer"
	"mascot.dev/mascot/runner"
)

// TestAPIKeyIsNeverWritten runs with a key in the environment (the server
// requires it) and asserts the key appears in no database byte, no file of
// the run directory, no export and no log line, also when the server
// echoes the key back in every answer.
func TestAPIKeyIsNeverWritten(t *testing.T) {
	for _, echo := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "echoed"}[echo], func(t *testing.T) { testKeyNeverWritten(t, echo) })
	}
}

func testKeyNeverWritten(t *testing.T, echo bool) {
	const key = "sk-test-5f1c9e0b7d2a4c68"
	t.Setenv("MASCOT_TEST_KEY", key)
	srv := fakevllm.Start(t, fakevllm.Options{APIKey: key, EchoAuthorization: echo})
	dir := t.TempDir()
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/key"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 2}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + srv.URL() + `"], model: "Qwen/Qwen3-8B", api_key_env: "MASCOT_TEST_KEY"}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
`
	l := testspec.Load(t, src)
	dbPath := filepath.Join(dir, "m.db")
	store, err := results.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, Log: log,
		RunsDir: filepath.Join(dir, "runs"), Progress: &logs, Services: runner.Services{Trace: true}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 6 {
		t.Fatalf("ran %d units, want 6 (the key must have been sent)", sum.Ran)
	}
	if _, err := transfer.Export(context.Background(), store, sum.RunID, filepath.Join(dir, "export"),
		transfer.ExportOptions{IncludeTraining: true}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	if bytes.Contains(logs.Bytes(), []byte(key)) {
		t.Error("the key appears in the progress log or the run log")
	}
	if echo && !bytes.Contains(mustRead(t, dbPath), []byte("Bearer [REDACTED]")) {
		t.Error("the echoed key did not reach the database redacted: the server did not echo it")
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("the key appears in %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
