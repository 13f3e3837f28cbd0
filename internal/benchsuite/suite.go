package benchsuite

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is what the suite runs.
type Config struct {
	Rounds   int
	Contexts int  // dialogue contexts per candidates stage run (× 3 personas × K 4 requests)
	History  int  // dialogue contexts of an earlier run in the history case's store (0: no such case)
	Episodes int  // the store's benchmark database
	Tiny     bool // the engine on a tiny model (the small CI run)
	Skip     []string
}

// defaultRounds is the rounds of each phase: seven rather than five, as a
// candidates round's CPU ratio spreads widely within one run under
// ordinary load and a median of five moved between runs by more than the
// goal's margin (docs/benchmarks.md).
const defaultRounds = 7

// FromEnv is the full suite's configuration, with the environment's
// overrides (doc.go lists them).
func FromEnv() Config {
	c := Config{Rounds: defaultRounds, Contexts: 200, History: candHistory, Episodes: 10_000}
	if v, err := strconv.Atoi(os.Getenv("MASCOT_BENCH_ROUNDS")); err == nil && v > 0 {
		c.Rounds = v
	}
	if v, err := strconv.Atoi(os.Getenv("MASCOT_BENCH_EPISODES")); err == nil && v > 0 {
		c.Episodes = v
	}
	if os.Getenv("MASCOT_BENCH_100K") == "1" {
		c.Episodes = paperScale
	}
	if v := os.Getenv("MASCOT_BENCH_SKIP"); v != "" {
		c.Skip = strings.Split(v, ",")
	}
	return c
}

// Run measures every phase cfg does not skip, in dir.
func Run(ctx context.Context, dir string, cfg Config) (*Table, error) {
	t := &Table{Commit: commit(), Started: time.Now(), LoadBefore: loadAvg(), Rounds: cfg.Rounds}
	on := func(p string) bool { return !slices.Contains(cfg.Skip, p) }
	if on("candidates") {
		rows, err := candidatesRows(ctx, filepath.Join(dir, "candidates"), cfg.Contexts, cfg.History, cfg.Rounds)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, rows...)
	}
	if on("store") {
		rows, err := storeRows(ctx, dir, cfg.Episodes, cfg.Rounds)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		t.Rows = append(t.Rows, rows...)
	}
	if on("engine") {
		rows, detail, err := engineRows(cfg.Rounds, cfg.Tiny)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		t.Rows = append(t.Rows, rows...)
		t.Details = append(t.Details, detail)
	}
	if on("demo") {
		rows, err := demoRows(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		t.Rows = append(t.Rows, rows...)
	}
	t.LoadAfter = loadAvg()
	return t, nil
}

// commit is the checked-out commit, "+dirty" when the tree has changes.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "?"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}
