package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

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
	l, err := schema.Load("demo", schema.Options{})
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
