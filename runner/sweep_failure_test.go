package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// TestSweepRunsVariantsSideBySideAndSurvivesAFailure: three variants, each
// calling its own server for its own model (so they share no unit), with
// the spec's max_parallel at 2. Two variants
// are in flight at once (the servers hold their first reply until a
// second server has been called), never three (no child run starts before
// another has finished), and the variant whose model no server serves
// fails without stopping the others: the summary names it and says why.
func TestSweepRunsVariantsSideBySideAndSurvivesAFailure(t *testing.T) {
	var mu sync.Mutex
	called := map[int]bool{}
	two := make(chan struct{})
	var servers []*fakevllm.Server
	for i := range 3 {
		servers = append(servers, fakevllm.Start(t, fakevllm.Options{Model: fmt.Sprintf("m%d", i), Reply: func(fakevllm.Request) (string, bool) {
			mu.Lock()
			if !called[i] {
				called[i] = true
				if len(called) == 2 {
					close(two)
				}
			}
			mu.Unlock()
			// Only so that a sweep running one variant at a time fails
			// instead of hanging the suite.
			select {
			case <-two:
			case <-time.After(5 * time.Minute):
				t.Errorf("server %d: no second variant called its server while this one waited", i)
			}
			return "", false
		}}))
	}
	spec := testspec.Write(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/sweep-failure"
_url: *"http://unused/v1" | string @tag(url)
datasets: es: {name: "esconv", path: "`+testspec.ESConv+`", limit: 2}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [_url], model: *"m0" | string, retries: 0}
stages: gen: {kind: "candidates", dataset: "es", roster: "support", k: 2}
sweep: {
	mode: "zip"
	max_parallel: 2
	axes: {
		"@url": ["`+servers[0].URL()+`", "`+servers[1].URL()+`", "`+servers[2].URL()+`"]
		"endpoints.speaker.model": ["m0", "m1", "not-served"]
	}
}
`)
	dir := t.TempDir()
	store, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum, err := runner.Sweep(context.Background(), runner.SweepOptions{Arg: spec,
		Run: runner.Options{Store: store, RunsDir: filepath.Join(dir, "runs")}})
	if sum == nil {
		t.Fatalf("no summary: %v", err)
	}
	var printed bytes.Buffer
	runner.PrintSweep(&printed, sum)
	bad := `@url="` + servers[2].URL() + `", endpoints.speaker.model="not-served"`
	if err == nil || !strings.Contains(err.Error(), "1 of 3 sweep variants failed") || !strings.Contains(err.Error(), bad) ||
		!strings.Contains(err.Error(), "not-served") {
		t.Errorf("sweep error %v; want one naming the failed variant and why", err)
	}
	for i, c := range sum.Children {
		switch {
		case i < 2 && (c.Error != "" || c.Summary == nil || c.Summary.Status != "done" || c.Summary.Ran == 0):
			t.Errorf("variant %s did not finish: %q\n%s", c.Variant.Label(), c.Error, printed.String())
		case i == 2 && c.Error == "":
			t.Errorf("variant %s did not fail", c.Variant.Label())
		}
	}
	if n := store.ExpectedCommits(); n != 0 {
		t.Errorf("%d unit commits still expected after the sweep (failed units included), want 0", n)
	}
	// The printed summary says which variant failed and why: the model
	// the server does not have, not only that a stage failed.
	if !strings.Contains(printed.String(), "1 of 3 variants failed") ||
		!strings.Contains(printed.String(), "  "+bad+": ") || !strings.Contains(printed.String(), "The model `not-served` does not exist") {
		t.Errorf("the summary does not say which variant failed and why:\n%s", printed.String())
	}
	// No more than max_parallel children ran at once: a child starts
	// only after another has finished.
	rows, err := store.Reader().Query(`SELECT started_at, finished_at FROM runs WHERE parent_id = ?`, sum.ParentID)
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ start, end int64 }
	var spans []span
	for rows.Next() {
		var s span
		if err := rows.Scan(&s.start, &s.end); err != nil {
			t.Fatal(err)
		}
		spans = append(spans, s)
	}
	rows.Close()
	if len(spans) != 3 {
		t.Fatalf("%d child runs, want 3", len(spans))
	}
	most := 0
	for _, a := range spans {
		n := 0
		for _, b := range spans {
			if b.start <= a.start && a.start < b.end {
				n++
			}
		}
		most = max(most, n)
	}
	if most != 2 {
		t.Errorf("at most %d child runs were running at once, want max_parallel (2): %v", most, spans)
	}
}
