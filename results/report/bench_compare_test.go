package report

import (
	"context"
	"io"
	"testing"
	"time"

	"mascot.dev/mascot/internal/benchdb"
)

// BenchmarkCompare100k measures `mascot results compare` of the benchmark
// pipeline run with its cached rerun: 100,000 paired evaluation episodes
// per side, 1000 bootstrap resamples per cell, text rendering: computed
// afresh (Options.NoCache), with a seed not asked for before (the paired
// tables miss; the runs' score groups come from the cache where a report
// stored them, else from the report blocks: a comparison stores only its
// tables), and served from the report cache; cold forgets both runs'
// stored results before each iteration (outside the timer).
func BenchmarkCompare100k(b *testing.B) {
	s := benchdb.Open(b, 100_000)
	for _, bc := range []struct {
		name  string
		opts  Options
		seeds bool // a new seed per iteration
		cold  bool // forget both runs' stored results before each iteration
	}{{"fresh", Options{NoCache: true}, false, false}, {"cold", Options{}, false, true},
		{"from_groups", Options{}, true, false}, {"cached", Options{}, false, false}} {
		b.Run(bc.name, func(b *testing.B) {
			if !bc.opts.NoCache && !bc.cold {
				if _, err := Compare(context.Background(), s, benchdb.RunID, benchdb.RunB, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			defer benchdb.ReportCPU(b)()
			seed := uint64(time.Now().UnixNano())
			for b.Loop() {
				o := bc.opts
				if bc.cold {
					b.StopTimer()
					for _, id := range []string{benchdb.RunID, benchdb.RunB} {
						if err := s.ForgetResults(context.Background(), id); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
				}
				if bc.seeds {
					seed++
					o.Seed = seed
				}
				c, err := Compare(context.Background(), s, benchdb.RunID, benchdb.RunB, o)
				if err != nil {
					b.Fatal(err)
				}
				if len(c.Paired) != 3 || c.Paired[0].Rows[0].N != 8334 {
					b.Fatalf("%d paired tables", len(c.Paired))
				}
				if err := RenderComparison(io.Discard, c, FormatText); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
