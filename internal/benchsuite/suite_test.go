package benchsuite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/testgate"
)

func TestMain(m *testing.M) {
	if HelperMain() {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkSuite runs the suite and prints its table (doc.go); with
// MASCOT_BENCH_PAGE=docs/benchmarks.md (relative to the repository root)
// it also writes the table into that page:
//
//	MASCOT_BENCH_PAGE=docs/benchmarks.md go test ./internal/benchsuite -run '^$' -bench Suite -benchtime 1x -timeout 2h
func BenchmarkSuite(b *testing.B) {
	for b.Loop() {
		cfg := FromEnv()
		t, err := Run(context.Background(), b.TempDir(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		t.Print(os.Stdout)
		if page := os.Getenv("MASCOT_BENCH_PAGE"); page != "" {
			if !filepath.IsAbs(page) {
				page = filepath.Join("..", "..", page) // the test runs in internal/benchsuite
			}
			if err := WritePage(page, t.Block(cfg)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestSuiteSmall runs every phase but the demo (TestDemoEndToEnd runs
// that) at a small scale and checks the table holds a row per figure,
// each with a value per round; the figures themselves are not asserted
// (speed is for benchmarks).
func TestSuiteSmall(t *testing.T) {
	testgate.Long(t, "the benchmark suite at a small scale, a minute on 2 cores")
	cfg := Config{Rounds: 2, Contexts: 10, History: 30, Episodes: 400, Tiny: true, Skip: []string{"demo"}}
	tab, err := Run(context.Background(), t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	tab.Print(&out)
	t.Log(out.String())
	want := 10 + 6 + 4 // candidates (5 cases × rate, CPU), store ops, engine ratios
	if len(tab.Rows) != want {
		t.Fatalf("%d rows, want %d", len(tab.Rows), want)
	}
	for _, r := range tab.Rows {
		if len(r.Values) != cfg.Rounds {
			t.Errorf("%s: %d values, want %d", r.Figure, len(r.Values), cfg.Rounds)
		}
		for _, v := range r.Values {
			if !(v > 0) {
				t.Errorf("%s: value %v, want > 0", r.Figure, v)
			}
		}
	}
	for _, s := range []string{"candidates stage", "each side a fresh process", "store holding 90 earlier units", "report, computed afresh", "viewer compare page", "engine qwen3-tiny", "load average"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the table lacks %q", s)
		}
	}
}
