package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
)

// TestKillAndResume SIGKILLs `mascot run` at random points at least 10
// times, reruns it to completion, and checks the database holds exactly the
// rows of an uninterrupted run: same fingerprints, no duplicates, no orphans.
func TestKillAndResume(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mascot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building mascot: %v\n%s", err, out)
	}
	srv := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 60 * time.Millisecond, Jitter: 40 * time.Millisecond}, Seed: 7})
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.cue")
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/kill"
datasets: es: {name: "esconv", path: %q, limit: 8}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", concurrency: 3, supports_n: false}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 3}
stages: more: {kind: "candidates", dataset: "es", roster: "support", k: 2, after: ["cand"]}
`, testspec.ESConv, srv.URL())
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(db string) *exec.Cmd {
		c := exec.Command(bin, "run", spec, "--db", db, "--runs-dir", filepath.Join(dir, "runs"))
		c.Dir = dir
		return c
	}
	clean := filepath.Join(dir, "clean.db")
	if out, err := run(clean).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}

	killed := filepath.Join(dir, "killed.db")
	rng := rand.New(rand.NewSource(1))
	kills := 0
	for attempt := 0; kills < 10 && attempt < 60; attempt++ {
		c := run(killed)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-time.After(time.Duration(200+rng.Intn(400)) * time.Millisecond):
			_ = c.Process.Kill() // SIGKILL
			<-done
			kills++
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d failed on its own: %v", attempt, err)
			}
		}
	}
	if kills < 10 {
		t.Fatalf("only %d kills landed mid-run", kills)
	}
	if out, err := run(killed).CombinedOutput(); err != nil {
		t.Fatalf("final rerun: %v\n%s", err, out)
	}

	want, got := snapshot(t, clean), snapshot(t, killed)
	if len(want.units) != 48 {
		t.Fatalf("uninterrupted run has %d done units, want 48 (8 contexts x 3 personas x 2 stages)", len(want.units))
	}
	if fmt.Sprint(want.units) != fmt.Sprint(got.units) {
		t.Fatalf("done units differ after %d kills:\nclean  %d\nkilled %d", kills, len(want.units), len(got.units))
	}
	if fmt.Sprint(want.rows) != fmt.Sprint(got.rows) {
		t.Fatalf("candidate rows differ after %d kills:\nclean  %v\nkilled %v", kills, want.rows[:3], got.rows[:3])
	}
	if got.dups != 0 || got.orphans != 0 {
		t.Fatalf("after %d kills: %d duplicate and %d orphan candidate rows", kills, got.dups, got.orphans)
	}
}

type dbSnapshot struct {
	units         []string
	rows          []string // unit_fp|persona|sample_idx|text
	dups, orphans int
}

func snapshot(t *testing.T, path string) dbSnapshot {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var s dbSnapshot
	q := func(query string, each func(*sql.Rows) error) {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := each(rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	q(`SELECT fingerprint FROM units WHERE state = 'done'`, func(r *sql.Rows) error {
		var fp string
		err := r.Scan(&fp)
		s.units = append(s.units, fp)
		return err
	})
	q(`SELECT unit_fp, persona, sample_idx, text FROM candidates`, func(r *sql.Rows) error {
		var fp, p, txt string
		var i int
		err := r.Scan(&fp, &p, &i, &txt)
		s.rows = append(s.rows, fmt.Sprintf("%s|%s|%d|%s", fp, p, i, txt))
		return err
	})
	sort.Strings(s.units)
	sort.Strings(s.rows)
	if err := db.QueryRow(`SELECT COUNT(*) FROM (SELECT unit_fp, sample_idx FROM candidates GROUP BY unit_fp, sample_idx HAVING COUNT(*) > 1)`).Scan(&s.dups); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM candidates c LEFT JOIN units u ON u.fingerprint = c.unit_fp WHERE u.state IS NOT 'done'`).Scan(&s.orphans); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInterruptStopsCleanlyAndResumes sends SIGINT (Ctrl-C) to a running
// `mascot run`: it stops with a non-zero exit, records the run as
// interrupted, and the rerun finishes only what was left.
func TestInterruptStopsCleanlyAndResumes(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mascot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building mascot: %v\n%s", err, out)
	}
	srv := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 80 * time.Millisecond}})
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.cue")
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/interrupt"
datasets: es: {name: "esconv", path: %q, limit: 10}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", concurrency: 2, supports_n: false}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
`, testspec.ESConv, srv.URL())
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "m.db")
	c := exec.Command(bin, "run", spec, "--db", db, "--runs-dir", filepath.Join(dir, "runs"))
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := c.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err == nil {
		t.Fatalf("an interrupted run exited 0:\n%s", out.String())
	}
	s := snapshot(t, db)
	if len(s.units) == 0 || len(s.units) >= 30 {
		t.Fatalf("%d units done at the interrupt, want some but not all 30", len(s.units))
	}
	var status string
	sdb, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if err := sdb.QueryRow(`SELECT status FROM runs ORDER BY started_at LIMIT 1`).Scan(&status); err != nil || status != "interrupted" {
		t.Fatalf("run status %q (%v), want interrupted", status, err)
	}
	done := len(s.units)
	re := exec.Command(bin, "run", spec, "--db", db, "--runs-dir", filepath.Join(dir, "runs"))
	reOut, err := re.CombinedOutput()
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, reOut)
	}
	if want := fmt.Sprintf("— %d units ran, %d cached, 0 failed", 30-done, done); !bytes.Contains(reOut, []byte(want)) {
		t.Fatalf("rerun should say %q:\n%s", want, reOut)
	}
}
