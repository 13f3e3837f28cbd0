package main

import (
	"bytes"
	"database/sql"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"mascot.dev/mascot/internal/testspec"
)

// TestSignalStopsTrainingAndResumes sends SIGTERM to `mascot run` in the
// middle of a training stage, checks that the process exits promptly
// (within a generous bound: the latency itself goes to docs/benchmarks.md),
// and that rerunning the same command resumes from the unit's last
// checkpoint (RunsDir/checkpoints/<unit fingerprint>) rather than step 0.
func TestSignalStopsTrainingAndResumes(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mascot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building mascot: %v\n%s", err, out)
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "pretrain.txt")
	var corpus bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&corpus, "line %d: hello there, how are you today? i am fine, thank you.\n", i)
	}
	if err := os.WriteFile(text, corpus.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "spec.cue")
	src := fmt.Sprintf(`package spec

name: "test/signal"
seed: 3
datasets: es: {name: "esconv", path: %q, limit: 1}
stages: pre: {kind: "pretrain", text: %q, max_steps: 120, batch_size: 4, max_length: 64, checkpoint_every: 2,
	model: {hidden_size: 64, intermediate_size: 128, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 16}}
`, testspec.ESConv, text)
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, db := filepath.Join(dir, "runs"), filepath.Join(dir, "m.db")
	start := func() (*exec.Cmd, *bytes.Buffer) {
		c := exec.Command(bin, "run", spec, "--db", db, "--runs-dir", runs)
		c.Dir = dir
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c, &out
	}
	// The first run: wait for a checkpoint, then SIGTERM.
	c, out := start()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var ckpt string
	deadline := time.Now().Add(2 * time.Minute)
	for ckpt == "" {
		if time.Now().After(deadline) {
			_ = c.Process.Kill()
			t.Fatalf("no checkpoint after 2 minutes:\n%s", out)
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended before it was signalled (%v):\n%s", err, out)
		case <-time.After(50 * time.Millisecond):
		}
		m, _ := filepath.Glob(filepath.Join(runs, "checkpoints", "*", "trainer_state.gob"))
		if len(m) == 1 && checkpointStep(m[0]) >= 4 {
			ckpt = m[0]
		}
	}
	sent := time.Now()
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		took := time.Since(sent)
		t.Logf("SIGTERM to exit: %v", took)
		if err == nil {
			t.Fatalf("an interrupted run exited 0:\n%s", out)
		}
	case <-time.After(30 * time.Second):
		_ = c.Process.Kill()
		t.Fatalf("mascot run did not exit within 30 s of SIGTERM:\n%s", out)
	}
	at := checkpointStep(ckpt)
	// The same command again, to the end: it resumes from that checkpoint.
	c, out = start()
	if err := c.Wait(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	var meta string
	if err := openDB(t, db).QueryRow(`SELECT meta_json FROM artifacts WHERE kind = 'model'`).Scan(&meta); err != nil {
		t.Fatal(err)
	}
	var m struct {
		ResumedFrom int `json:"resumed_from"`
	}
	if err := json.Unmarshal([]byte(meta), &m); err != nil {
		t.Fatal(err)
	}
	if m.ResumedFrom < at || m.ResumedFrom == 0 {
		t.Fatalf("the rerun resumed from step %d, want the checkpoint's %d or later (meta %s)", m.ResumedFrom, at, meta)
	}
	if left, _ := filepath.Glob(filepath.Join(runs, "checkpoints", "*")); len(left) != 0 {
		t.Errorf("the finished unit left its checkpoint: %v", left)
	}
}

// checkpointStep reads the step of a trainer checkpoint (0 if unreadable).
func checkpointStep(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var c struct{ Step int }
	if gob.NewDecoder(f).Decode(&c) != nil {
		return 0
	}
	return c.Step
}

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
