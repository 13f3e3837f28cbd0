package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/spec"
)

// TestAsPlugin builds the example and runs it through the host, as mascot does.
func TestAsPlugin(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "lengthjudge")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ctx := context.Background()
	j, err := host.StartJudge(ctx, host.Config{Name: "lengthjudge", Command: bin, Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if ds, err := j.Configure(ctx, json.RawMessage(`{"target_words": 4}`)); err != nil || len(ds) > 0 {
		t.Fatalf("configure: %v %v", ds, err)
	}
	res, err := j.Score(ctx, []spec.Item{
		{ID: "on", Response: "one two three four"},  // ratio 1 -> 5 -> 100
		{ID: "double", Response: "a b c d e f g h"}, // ratio 2 -> 5-2 = 3 -> 50
		{ID: "empty", Response: " "},                // diagnostic -> failed
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Results[0].Scores[0].Normalized != 100 || res.Results[1].Scores[0].Normalized != 50 || !res.Results[2].Failed || res.AnnotationFailures != 1 {
		t.Fatalf("%+v", res)
	}
	ds, _ := j.Configure(ctx, json.RawMessage(`{"target_words": -3}`))
	if len(ds) != 1 || ds[0].Path[0] != "target_words" {
		t.Fatalf("diagnostics: %+v", ds)
	}
}
