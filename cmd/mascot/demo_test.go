package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"mascot.dev/mascot/cmd/mascot/cli"
)

// TestDemoEndToEnd runs `mascot run demo` — the README's main job — from an
// empty directory, then again: the second run executes zero units, says so,
// and takes under 10 % of the first run's time. The report shows the
// speaker's training reward on held-out prompts rising under GRPO.
func TestDemoEndToEnd(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	run := func() (string, time.Duration) {
		var out, errb bytes.Buffer
		start := time.Now()
		code := cli.Run(context.Background(), []string{"run", "demo"}, &out, &errb)
		took := time.Since(start)
		if code != 0 {
			t.Fatalf("mascot run demo: exit %d\n%s\n%s", code, out.String(), lastLines(errb.String(), 40))
		}
		return out.String(), took
	}
	first, took1 := run()
	t.Logf("first run: %s", took1)
	for _, want := range []string{"Per-agent criteria", "Collective criteria", "Overall", "self_bleu", "database: mascot.db"} {
		if !bytes.Contains([]byte(first), []byte(want)) {
			t.Errorf("demo output lacks %q:\n%s", want, first)
		}
	}
	m := regexp.MustCompile(`speaker_grpo\s+(-?[0-9.]+) ->\s+(-?[0-9.]+)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("report shows no held-out reward for speaker_grpo:\n%s", first)
	}
	before, _ := strconv.ParseFloat(m[1], 64)
	after, _ := strconv.ParseFloat(m[2], 64)
	if !(after > before) {
		t.Errorf("speaker held-out reward did not rise under GRPO: %.4f -> %.4f", before, after)
	}
	if _, err := os.Stat(filepath.Join(dir, "mascot.db")); err != nil {
		t.Fatal(err)
	}
	second, took2 := run()
	t.Logf("second run: %s", took2)
	if !regexp.MustCompile(`— 0 units ran, [0-9]+ cached, 0 failed`).MatchString(second) ||
		!bytes.Contains([]byte(second), []byte("nothing to do")) {
		t.Errorf("second run did work or did not say so:\n%s", lastLines(second, 8))
	}
	if took2 > took1/10 {
		t.Errorf("second run took %s, more than 10%% of the first (%s)", took2, took1)
	}
}

func lastLines(s string, n int) string {
	lines := bytes.Split([]byte(s), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
