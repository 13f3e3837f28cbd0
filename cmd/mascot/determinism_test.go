package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/internal/testgate"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestDemoTwiceIsIdentical runs `mascot run demo` in two fresh directories
// and requires the same results: every stage's digest (its units, its
// result rows without ids and times, its artefacts' content hashes, so the
// adapters and models are byte-identical) and the report tables. On a
// difference it names the first stage, in the order stages run, that
// differs and how. It needs the built-in engine to decode a request to the
// same tokens whatever else is in its batch, and training to be
// deterministic for a given thread count.
func TestDemoTwiceIsIdentical(t *testing.T) {
	testgate.Long(t, "the full demo twice, in two directories: minutes on 2 cores")
	ctx := context.Background()
	type outcome struct {
		digests []results.StageDigest
		report  []byte
	}
	// Fresh runs: each its own mascot process, as a user runs it (state a
	// process keeps from an earlier run must not decide this test).
	bin := filepath.Join(t.TempDir(), "mascot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building mascot: %v\n%s", err, out)
	}
	runIn := func(dir string) outcome {
		t.Helper()
		c := exec.Command(bin, "run", "demo")
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("mascot run demo in %s: %v\n%s", dir, err, lastLines(string(out), 40))
		}
		store, err := results.Open(filepath.Join(dir, "mascot.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		run, err := store.ResolveRun(ctx, "latest")
		if err != nil {
			t.Fatal(err)
		}
		ds, err := store.StageDigests(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := report.Build(ctx, store, []string{run.ID}, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rep.Tables { // ids aside
			rep.Tables[i].RunID = ""
		}
		for i := range rep.Judges { // the demo's evaluation has two judges
			rep.Judges[i].RunID = ""
		}
		rep.Runs = nil
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return outcome{digests: ds, report: b}
	}
	a := runIn(t.TempDir())
	b := runIn(t.TempDir())
	l, err := schema.Load("demo", runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	order, err := runner.StageOrder(l.Experiment)
	if err != nil {
		t.Fatal(err)
	}
	byKey := func(ds []results.StageDigest) map[string]results.StageDigest {
		m := map[string]results.StageDigest{}
		for _, d := range ds {
			m[d.Key] = d
		}
		return m
	}
	da, db := byKey(a.digests), byKey(b.digests)
	var differ []string
	for _, k := range order {
		x, y := da[k], db[k]
		if !x.Same(y) {
			differ = append(differ, k)
			t.Errorf("stage %s differs between the two runs: %s", k, x.Differences(y))
		}
	}
	if len(differ) > 0 {
		t.Fatalf("the first stage that differs is %s (in run order; %d of %d stages differ)", differ[0], len(differ), len(order))
	}
	if !bytes.Equal(a.report, b.report) {
		t.Fatal("every stage matches but the report tables differ")
	}
}

// TestKilledTourResumesToTheCleanRun SIGKILLs the README's tour (on four
// contexts) once some of its evaluation episodes are committed, resumes it,
// and requires every stage to hold what an uninterrupted run in another
// directory holds (units, rows without ids and times, artefact hashes).
// The resumed run decodes its remaining requests beside other requests
// than the clean run did, and reuses the replies the killed process had
// fetched: the built-in engine's batch invariance and per-request seeds
// are what make the two agree (a killed-and-resumed demo once held 38
// candidates where the clean one held 39).
func TestKilledTourResumesToTheCleanRun(t *testing.T) {
	testgate.Long(t, "the tour twice, one of them killed and resumed: minutes on 2 cores")
	bin := filepath.Join(t.TempDir(), "mascot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building mascot: %v\n%s", err, out)
	}
	// Four evaluation contexts instead of the README's two, so that the
	// kill leaves some to resume.
	spec := strings.Replace(tourSpec(t), `limit: 2,`, `limit: 4,`, 1)
	if !strings.Contains(spec, `limit: 4,`) {
		t.Fatal("the README's tour.cue no longer reads `limit: 2,`; update this test")
	}
	runIn := func(dir string) *exec.Cmd {
		if err := os.WriteFile(filepath.Join(dir, "tour.cue"), []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(bin, "run", "tour.cue")
		c.Dir = dir
		return c
	}
	digests := func(dir string) map[string]results.StageDigest {
		t.Helper()
		store, err := results.Open(filepath.Join(dir, "mascot.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		ctx := context.Background()
		run, err := store.ResolveRun(ctx, "latest")
		if err != nil {
			t.Fatal(err)
		}
		ds, err := store.StageDigests(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]results.StageDigest{}
		for _, d := range ds {
			m[d.Key] = d
		}
		return m
	}

	clean := t.TempDir()
	if out, err := runIn(clean).CombinedOutput(); err != nil {
		t.Fatalf("clean tour: %v\n%s", err, lastLines(string(out), 30))
	}

	killed := t.TempDir()
	c := runIn(killed)
	var log bytes.Buffer
	c.Stdout, c.Stderr = &log, &log
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	evalDone := func() int {
		db, err := sql.Open("sqlite3", "file:"+filepath.Join(killed, "mascot.db")+"?mode=ro")
		if err != nil {
			return 0
		}
		defer db.Close()
		var n int
		if db.QueryRow(`SELECT COUNT(*) FROM units WHERE stage_key = 'eval' AND state = 'done'`).Scan(&n) != nil {
			return 0
		}
		return n
	}
	for n := 0; n == 0; n = evalDone() {
		select {
		case err := <-done:
			t.Fatalf("the tour ended (%v) before an evaluation unit was seen committed:\n%s", err, lastLines(log.String(), 30))
		case <-time.After(50 * time.Millisecond):
		}
	}
	_ = c.Process.Kill() // SIGKILL
	<-done
	n := evalDone()
	if n >= 4 {
		t.Fatalf("all %d evaluation units were done at the kill; nothing is left to resume", n)
	}
	t.Logf("killed with %d of 4 evaluation units committed", n)
	if out, err := runIn(killed).CombinedOutput(); err != nil {
		t.Fatalf("resumed tour: %v\n%s", err, lastLines(string(out), 30))
	}

	want, got := digests(clean), digests(killed)
	if len(want) < 5 || want["eval"].Units != 4 {
		t.Fatalf("the clean tour has %d stages (eval %d units), want its five with 4 evaluation units", len(want), want["eval"].Units)
	}
	for k, w := range want {
		if g := got[k]; !w.Same(g) {
			t.Errorf("stage %s differs after the kill and resume: %s", k, w.Differences(g))
		}
	}
	if len(got) != len(want) {
		t.Errorf("the resumed tour has %d stages, the clean one %d", len(got), len(want))
	}
}
