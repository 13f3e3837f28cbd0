package report

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/gob"
	"fmt"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/transfer"
)

// cacheFixture is n episodes of fractional scores (see
// TestReportFromScoreSumsEqualsRawRows), shifted by r.
func cacheFixture(n, r int) []judged {
	var eps []judged
	for i := range n {
		eps = append(eps, judged{fmt.Sprintf("c%d", i), []string{"mascot", "zero-shot"}[i%2],
			[]string{"positive", "negative", "neutral"}[i%3],
			[]float64{1 + float64((i*7+r)%40)/10.3, 1 + float64((i*11)%40)/9.7},
			1 + float64((i*3+r)%40)/10.1, []float64{1 + float64(i%40)/10.7, 1 + float64((i*13)%40)/10.9}})
	}
	return eps
}

// commitTo commits one unit of run with fn.
func commitTo(t *testing.T, s *results.Store, run, fp string, fn func(tx *results.Tx) error) {
	t.Helper()
	if err := s.CommitUnit(context.Background(), results.Unit{Fingerprint: fp, Kind: "k", StageKey: "late", RunID: run}, fn); err != nil {
		t.Fatal(err)
	}
}

func episodeOf(t *testing.T, s *results.Store, run, conv string) int64 {
	t.Helper()
	var id int64
	err := s.Reader().QueryRow(`SELECT e.id FROM episodes e JOIN run_units ru ON ru.fingerprint = e.unit_fp
		WHERE ru.run_id = ? AND e.conv_id = ?`, run, conv).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestCachedReportNeverStale caches a run's report, checks that the cache
// serves it, then writes to the run through each kind of writer (a unit
// commit of judgments, of a metric, an ingested shard, a link of an
// imported unit, the run's end): after each, the report served must be the
// one computed afresh, and differ from the one before.
func TestCachedReportNeverStale(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	addRun(t, s, "A", cacheFixture(12, 0))
	opts := Options{Resamples: 50, Seed: 2, All: true}
	build := func(o Options) string {
		rep, err := Build(ctx, s, []string{"A"}, o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Render(&b, rep, FormatJSON); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	fresh := opts
	fresh.NoCache = true
	prev := ""
	check := func(step string) {
		t.Helper()
		got, want := build(opts), build(fresh)
		if got != want {
			t.Fatalf("after %s: the report served differs from a fresh one:\nserved: %.300s\nfresh:  %.300s", step, got, want)
		}
		if got == prev {
			t.Fatalf("after %s: the report did not change", step)
		}
		prev = got
	}
	check("the first report")

	// Other bootstrap options start from the run's cached score groups.
	seeded, seededFresh := opts, fresh
	seeded.Seed, seededFresh.Seed = 9, 9
	if got, want := build(seeded), build(seededFresh); got != want {
		t.Fatalf("the report from cached score groups differs from a fresh one:\nserved: %.300s\nfresh:  %.300s", got, want)
	}

	// The second request is served from the cache: replace the entry
	// (with the current stamps) and see the replacement served.
	key := CacheKey("tables/2", opts, "A")
	body, stamps, err := s.CachedResult(ctx, key, []string{"A"})
	if err != nil || body == nil {
		t.Fatalf("no entry stored after the first report (%v)", err)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode([]Table{{RunID: "A", Level: "agent", Title: "planted"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.StoreResult(ctx, key, []string{"A"}, stamps, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if rep, err := Build(ctx, s, []string{"A"}, opts); err != nil || len(rep.Tables) != 1 || rep.Tables[0].Title != "planted" {
		t.Fatalf("the cache did not serve its entry: %v", err)
	}

	ep := episodeOf(t, s, "A", "c0")
	commitTo(t, s, "A", "late-judge", func(tx *results.Tx) error {
		_, err := tx.InsertJudgments([]results.Judgment{{Judge: "j9", Criterion: "fidelity", Score: 5, EpisodeID: ep}})
		return err
	})
	check("a committed judgment")

	commitTo(t, s, "A", "late-metric", func(tx *results.Tx) error {
		_, err := tx.InsertMetric(results.Metric{Name: "words", Value: 7, EpisodeID: ep})
		return err
	})
	check("a committed metric")

	shardPath := filepath.Join(t.TempDir(), "shard.db")
	shard, err := results.Open(shardPath)
	if err != nil {
		t.Fatal(err)
	}
	addRun(t, shard, "job", cacheFixture(3, 5)[2:])
	if err := shard.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := results.Ingest(ctx, s, shardPath, "A"); err != nil {
		t.Fatal(err)
	}
	check("an ingested shard")

	imp, err := transfer.Import(ctx, s, filepath.Join("..", "testdata", "mascot_sample.jsonl"), "imported")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.LinkUnits(ctx, "A", "import", []string{imp.UnitFP}); err != nil {
		t.Fatal(err)
	}
	check("a link of an imported unit")

	if err := s.FinishRun(ctx, "A", results.RunDone, ""); err != nil {
		t.Fatal(err)
	}
	check("the run's end")
}

// TestCachedComparisonNeverStale caches a comparison and commits to its
// second run: the comparison served must be the fresh one.
func TestCachedComparisonNeverStale(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	addRun(t, s, "A", cacheFixture(12, 0))
	addRun(t, s, "B", cacheFixture(12, 3))
	compare := func(o Options) string {
		c, err := Compare(ctx, s, "A", "B", o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := RenderComparison(&b, c, FormatJSON); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	opts := Options{Resamples: 50, Seed: 2}
	fresh := opts
	fresh.NoCache = true
	before := compare(opts)
	if want := compare(fresh); before != want {
		t.Fatalf("the first comparison differs from a fresh one")
	}
	var n int
	if err := s.Reader().QueryRow(`SELECT COUNT(*) FROM report_cache WHERE run_id = 'A' AND key LIKE 'paired/%'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d entries stored (%v), want 1", n, err)
	}
	ep := episodeOf(t, s, "B", "c1")
	commitTo(t, s, "B", "late-judge", func(tx *results.Tx) error {
		_, err := tx.InsertJudgments([]results.Judgment{{Judge: "j9", Criterion: "fidelity", Score: 5, EpisodeID: ep}})
		return err
	})
	got, want := compare(opts), compare(fresh)
	if got != want || got == before {
		t.Fatalf("after a commit to run B: served %.300s\nfresh %.300s", got, want)
	}
}

// TestCachedSkipsResultOfChangedData writes to the run while the result is
// being computed: the stamps are those from before the computation, so
// the entry stored is never served.
func TestCachedSkipsResultOfChangedData(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	addRun(t, s, "A", cacheFixture(3, 0))
	ep := episodeOf(t, s, "A", "c0")
	get := func(computed string, write bool) string {
		v, err := Cached(ctx, s, "probe/1", []string{"A"}, func() (string, error) {
			if write {
				commitTo(t, s, "A", "during", func(tx *results.Tx) error {
					_, err := tx.InsertJudgments([]results.Judgment{{Judge: "j9", Criterion: "fidelity", Score: 2, EpisodeID: ep}})
					return err
				})
			}
			return computed, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := get("first", true); v != "first" {
		t.Fatalf("computed %q, want first", v)
	}
	if v := get("second", false); v != "second" {
		t.Fatalf("served %q, computed while the data changed; want the recomputed second", v)
	}
	if v := get("third", false); v != "second" {
		t.Fatalf("served %q, want the stored second", v)
	}
}

// TestReportServedWhileCacheLocked builds a report while another
// connection holds the database's write lock (a long import, say): the
// report is computed and served as a fresh one, and nothing is stored.
func TestReportServedWhileCacheLocked(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	s, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addRun(t, s, "A", cacheFixture(6, 0))
	lock, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	tx, err := lock.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Resamples: 20}
	served, err := Build(ctx, s, []string{"A"}, opts)
	if err != nil {
		t.Fatalf("report while the database is locked: %v", err)
	}
	opts.NoCache = true
	fresh, err := Build(ctx, s, []string{"A"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := Render(&a, served, FormatJSON); err != nil {
		t.Fatal(err)
	}
	if err := Render(&b, fresh, FormatJSON); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("the report served while locked differs from a fresh one")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.Reader().QueryRow(`SELECT COUNT(*) FROM report_cache`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d entries stored while locked (%v), want 0", n, err)
	}
}
