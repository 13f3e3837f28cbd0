package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/internal/testgate"
)

// TestFreshCloneFollowsTheREADME does what README.md says, top to bottom,
// the way a newcomer would, in a fresh clone of this repository's
// committed HEAD (uncommitted edits are not in it): it installs mascot with
// `go install ./cmd/mascot` into a temporary GOBIN put on PATH, runs the
// README's two commands, writes the tour's file from the clone's README
// and runs the tour's lines with the installed binary through the shell
// (each with the exit code its comment promises), then `mascot show` of
// every `mascot list` entry without any tag.
//
// The second README command, `go test ./...`, is run as a quick subset
// (the schema loader and the CLI's list, from the clone): the whole suite
// inside this test would run this test again, and it is what CI runs
// anyway. The first, `go run ./cmd/mascot run demo`, runs in full
// (minutes on 2 cores).
func TestFreshCloneFollowsTheREADME(t *testing.T) {
	testgate.Long(t, "a fresh clone, an install and the whole demo: minutes on 2 cores")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	clone, bin := filepath.Join(tmp, "mascot"), filepath.Join(tmp, "bin")
	env := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"MASCOT_FULL=", "GOFLAGS=")
	sh := func(dir, line string, want int, limit time.Duration) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		got := 0
		if ee, ok := err.(*exec.ExitError); ok {
			got = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, lastLines(string(out), 30))
		}
		if got != want {
			t.Fatalf("%s: exit %d, want %d\n%s", line, got, want, lastLines(string(out), 30))
		}
		return string(out)
	}

	// Setup: the clone and the install.
	sh(tmp, "git clone --quiet "+strconv.Quote(root)+" mascot", 0, 2*time.Minute)
	sh(clone, "go install ./cmd/mascot", 0, 10*time.Minute)
	if v := sh(clone, "mascot --version", 0, time.Minute); !strings.HasPrefix(v, "mascot ") {
		t.Fatalf("mascot --version printed %q", v)
	}
	readme := filepath.Join(clone, "README.md")
	blocks, err := docBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	var setup, tour, tourFile string
	for _, b := range blocks {
		switch {
		case setup == "" && b.info == "sh" && strings.Contains(b.body, "git clone"):
			setup = b.body
		case b.info == "cue file=tour.cue":
			tourFile = b.body
		case b.info == "sh runnable" && tour == "":
			tour = b.body
		}
	}
	if setup == "" || tour == "" || tourFile == "" {
		t.Fatal("the README lost its setup block, its tour.cue or its runnable tour block")
	}

	// The two commands, as the setup block writes them.
	for _, want := range []string{"go run ./cmd/mascot run demo", "go test ./..."} {
		if !strings.Contains(setup, want) {
			t.Fatalf("the README's setup block no longer says %q:\n%s", want, setup)
		}
	}
	demo := sh(clone, "go run ./cmd/mascot run demo", 0, 25*time.Minute)
	if !strings.Contains(demo, "database: mascot.db") {
		t.Errorf("the demo did not end with its database:\n%s", lastLines(demo, 10))
	}
	if again := sh(clone, "go run ./cmd/mascot run demo", 0, 5*time.Minute); !strings.Contains(again, "nothing to do") {
		t.Errorf("the demo's rerun did work or did not say so:\n%s", lastLines(again, 10))
	}
	sh(clone, "go test -count=1 -run 'TestLoad|TestListJSON' ./schema ./cmd/mascot/cli", 0, 10*time.Minute)

	// The tour, in a folder of its own, with the installed binary.
	tourDir := filepath.Join(tmp, "tour")
	if err := os.MkdirAll(tourDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tourDir, "tour.cue"), []byte(tourFile), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(tour, "\n") {
		cmd, comment, _ := strings.Cut(line, " #")
		if cmd = strings.TrimSpace(cmd); !strings.HasPrefix(cmd, "mascot ") {
			continue
		}
		want := 0
		if code, ok := strings.CutPrefix(strings.TrimSpace(comment), "exit "); ok {
			if want, err = strconv.Atoi(code); err != nil {
				t.Fatalf("README tour: bad exit code in %q", line)
			}
		}
		sh(tourDir, cmd, want, 15*time.Minute)
		n++
	}
	if n < 5 {
		t.Fatalf("the tour ran %d lines", n)
	}

	// show of every listed config, no tags given.
	var entries []struct {
		Name     string   `json:"name"`
		Requires []string `json:"requires"`
	}
	if err := json.Unmarshal([]byte(sh(tourDir, "mascot list --json", 0, time.Minute)), &entries); err != nil {
		t.Fatalf("mascot list --json: %v", err)
	}
	if len(entries) < 10 {
		t.Fatalf("mascot list --json lists %d configs", len(entries))
	}
	for _, e := range entries {
		out := sh(tourDir, "mascot show "+e.Name+" 2>/dev/null", 0, 2*time.Minute)
		var cfg map[string]any
		if err := json.Unmarshal([]byte(out), &cfg); err != nil {
			t.Errorf("mascot show %s: not the config as JSON: %v", e.Name, err)
			continue
		}
		// Every required tag is listed as open; the config shows at least
		// one where it is used (a sweep's base uses some of them only).
		notes := sh(tourDir, "mascot show "+e.Name+" 2>&1 >/dev/null", 0, 2*time.Minute)
		for _, tag := range e.Requires {
			if !strings.Contains(notes, "tag "+tag+": open (required to run") {
				t.Errorf("mascot show %s does not list tag %s as open:\n%s", e.Name, tag, notes)
			}
		}
		if len(e.Requires) > 0 && !strings.Contains(out, `"@tag(`) {
			t.Errorf("mascot show %s shows no open tag in the config", e.Name)
		}
	}
}
