package report

import (
	"context"
	"io"
	"testing"
	"time"

	"mascot.dev/mascot/internal/benchdb"
)

// BenchmarkReport100k measures `mascot report` on the benchmark pipeline
// run (benchdb) of 100,000 evaluation episodes (3.8 million judgment rows
// of them, plus training-time rows the report leaves out): SQL
// aggregation, tables with 1000 bootstrap resamples per cell, and the text
// rendering: computed afresh (ci1000, noCI: Options.NoCache), from the
// run's cached score groups (from_groups: a seed not asked for before)
// and served from the report cache (cached: the entry stored beforehand);
// cold forgets the run's stored results before each iteration (outside
// the timer), so it computes the groups and tables and stores both, as
// `mascot report` does after a write to the run.
func BenchmarkReport100k(b *testing.B) {
	s := benchdb.Open(b, 100_000)
	ctx := context.Background()
	for _, bc := range []struct {
		name  string
		opts  Options
		seeds bool // a new seed per iteration
		cold  bool // forget the stored results before each iteration
	}{{"ci1000", Options{NoCache: true}, false, false}, {"noCI", Options{Resamples: -1, NoCache: true}, false, false},
		{"cold", Options{}, false, true}, {"from_groups", Options{}, true, false}, {"cached", Options{}, false, false}} {
		b.Run(bc.name, func(b *testing.B) {
			if !bc.opts.NoCache && !bc.cold {
				if _, err := Build(ctx, s, []string{benchdb.RunID}, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			defer benchdb.ReportCPU(b)()
			seed := uint64(time.Now().UnixNano())
			for i := 0; i < b.N; i++ {
				o := bc.opts
				if bc.cold {
					b.StopTimer()
					if err := s.ForgetResults(ctx, benchdb.RunID); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if bc.seeds {
					seed++
					o.Seed = seed
				}
				rep, err := Build(ctx, s, []string{benchdb.RunID}, o)
				if err != nil {
					b.Fatal(err)
				}
				if len(rep.Tables) != 3 || len(rep.Tables[0].Rows) != 12 || rep.Tables[0].Rows[0].N != 8334 {
					b.Fatalf("%d tables, want 3 of 12 rows, the first of 8334 episodes", len(rep.Tables))
				}
				if err := Render(io.Discard, rep, FormatText); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("sql_only", func(b *testing.B) {
		defer benchdb.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, err := s.ScoreGroups(ctx, benchdb.RunID, "auto"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
