package report

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/sqlrows"
)

// TestCompareStoresItsTablesNotTheGroups: a cached comparison stores its
// paired tables, not the runs' score groups it paired (cached), serves
// the tables it stored, and equals the comparison computed afresh; groups
// a report stored are read, not computed again, and give the same.
func TestCompareStoresItsTablesNotTheGroups(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	addRun(t, s, "A", cacheFixture(30, 0))
	addRun(t, s, "B", cacheFixture(30, 3))
	keys := func() []string {
		return sqlrows.Lines(t, s.Reader(), `SELECT run_id || ' ' || key FROM report_cache ORDER BY 1`)
	}
	text := func(o Options) string {
		c, err := Compare(ctx, s, "A", "B", o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	opts := Options{Resamples: 40, Seed: 5}
	fresh := text(Options{Resamples: 40, Seed: 5, NoCache: true})
	if len(keys()) != 0 {
		t.Fatalf("a comparison afresh stored %v", keys())
	}
	if got := text(opts); got != fresh {
		t.Fatalf("cached comparison differs from the fresh one:\n%.300s\n%.300s", got, fresh)
	}
	k := keys()
	if len(k) != 1 || !strings.HasPrefix(k[0], `["A paired/2 `) {
		t.Fatalf("stored after a comparison: %q, want its paired tables only", k)
	}
	if got := text(opts); got != fresh {
		t.Fatalf("comparison served from the cache differs from the fresh one")
	}
	// A report stores run A's groups; a comparison with a new seed pairs
	// them (and B's, computed) into the same tables as afresh.
	if _, err := Build(ctx, s, []string{"A"}, Options{Resamples: 40, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	groups := 0
	for _, k := range keys() {
		if strings.HasPrefix(k, `["A groups/2 `) {
			groups++
		}
	}
	if groups != 1 {
		t.Fatalf("after a report: %q, want run A's groups stored", keys())
	}
	o2 := Options{Resamples: 40, Seed: 9}
	if got, want := text(o2), text(Options{Resamples: 40, Seed: 9, NoCache: true}); got != want {
		t.Fatalf("comparison from stored groups differs from the fresh one:\n%.300s\n%.300s", got, want)
	}
	for _, k := range keys() {
		if strings.HasPrefix(k, `["B groups/2 `) {
			t.Fatalf("a comparison stored run B's groups: %q", keys())
		}
	}
}
