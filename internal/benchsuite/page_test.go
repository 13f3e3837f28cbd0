package benchsuite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWritePageKeepsOneBlockPerKind writes a suite table into a page
// twice for one kind of run and once for another: the first write lands
// before the suite section's first subsection, the second replaces it
// (the older figures are gone), the third adds a block of its own, and
// everything around the blocks is kept.
func TestWritePageKeepsOneBlockPerKind(t *testing.T) {
	page := filepath.Join(t.TempDir(), "benchmarks.md")
	orig := "# Benchmarks\n\n## The benchmark suite: every goal\n\nIntro.\n\n### An older dated run\n\nold\n\n## Other\n\ntext\n"
	if err := os.WriteFile(page, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := func(v float64) *Table {
		return &Table{Commit: "abc1234", Started: time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC), LoadBefore: "1 1 1", LoadAfter: "2 2 2",
			Rounds: 1, Rows: []Row{{Figure: "report, computed afresh", Values: []float64{v}, Cost: "1, 1"}}}
	}
	full := Config{Rounds: defaultRounds, Episodes: 10_000}
	store := Config{Rounds: 3, Episodes: paperScale, Skip: []string{"candidates", "engine", "demo"}}
	for _, w := range []struct {
		tab *Table
		cfg Config
	}{{tab(1.25), full}, {tab(7.5), full}, {tab(3.5), store}} {
		if err := WritePage(page, w.tab.Block(w.cfg)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(page)
	got := string(b)
	if strings.Contains(got, "1.25") {
		t.Errorf("the first run's block was not replaced:\n%s", got)
	}
	for _, want := range []string{"7.50", "3.50", "MASCOT_BENCH_100K=1 MASCOT_BENCH_ROUNDS=3 MASCOT_BENCH_SKIP=candidates,engine,demo go test",
		"Intro.\n\n" + blockOpen, "### An older dated run\n\nold\n\n## Other\n\ntext\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, blockClose); n != 2 {
		t.Errorf("%d blocks, want 2 (one per kind of run):\n%s", n, got)
	}
	if strings.Index(got, "7.50") > strings.Index(got, "### An older") {
		t.Errorf("the block is not before the section's first subsection:\n%s", got)
	}
}

// TestWritePageRefusesAPageWithoutTheSection leaves a page without the
// suite's section untouched and says why.
func TestWritePageRefusesAPageWithoutTheSection(t *testing.T) {
	page := filepath.Join(t.TempDir(), "benchmarks.md")
	os.WriteFile(page, []byte("# Other page\n"), 0o644)
	err := WritePage(page, (&Table{}).Block(Config{Rounds: defaultRounds, Episodes: 10_000}))
	if err == nil || !strings.Contains(err.Error(), "no \"## The benchmark suite\" section") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(page); string(b) != "# Other page\n" {
		t.Errorf("page changed: %q", b)
	}
}
