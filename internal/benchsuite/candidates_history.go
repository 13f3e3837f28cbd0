package benchsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// candHistory is the suite's default number of dialogue contexts of the
// earlier run the history case's store holds (3,000 contexts, 9,000
// units, 36,000 cached replies: a database of about 80 MB). A store that
// has seen some runs is what a researcher's stage writes into: its indexes
// are larger than a new store's, so a unit's rows land on leaves that no
// other unit of the same transaction touches, and more pages are read and
// written per unit (docs/benchmarks.md).
const candHistory = 3000

// candidatesSpec writes the phase's spec over contexts dialogue contexts
// numbered from first (to dir/spec<first>.cue, its data beside it) and
// loads it.
func candidatesSpec(dir, url string, contexts, first int, long bool) (*schema.Loaded, error) {
	data, err := writeContexts(dir, fmt.Sprintf("esconv-%d.json", first), first, contexts, long)
	if err != nil {
		return nil, err
	}
	spec := filepath.Join(dir, fmt.Sprintf("spec%d.cue", first))
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "bench/candidates"
datasets: es: {name: "esconv", path: %q}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", concurrency: %d, supports_n: false}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: %d}
`, data, url, candConc, candK)
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		return nil, err
	}
	return schema.Load(spec, runner.Default.Kinds(), schema.Options{})
}

// historyStore runs the stage once over c.history contexts other than the
// measured ones (numbered from 1,000,000) into a new store and returns its
// path: each measured run starts from a copy of it.
func historyStore(ctx context.Context, dir, url string, c candidatesCase) (string, error) {
	l, err := candidatesSpec(dir, url, c.history, 1_000_000, c.long)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "history.db")
	store, err := results.Open(path)
	if err != nil {
		return "", err
	}
	_, _, err = runStage(ctx, l, store, dir, c.history*candPersonas*candK)
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("filling the history store: %w", err)
	}
	return path, nil
}

// holdsHistory checks that the store at path, after a stage run into a
// copy of the history store, holds the earlier run's units and its own:
// units in all.
func holdsHistory(path string, units int) error {
	store, err := results.Open(path)
	if err != nil {
		return err
	}
	defer store.Close()
	var n int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM units WHERE state = 'done'`).Scan(&n); err != nil {
		return err
	}
	if n != units {
		return fmt.Errorf("the history case's store holds %d done units after a run, want %d", n, units)
	}
	return nil
}
