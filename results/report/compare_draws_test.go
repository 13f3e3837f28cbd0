package report

import (
	"context"
	"fmt"
	"math"
	"testing"

	"mascot.dev/mascot/results"
)

// TestCompareSharedDrawsEqualSeparateBootstraps checks that the
// comparison's confidence intervals, bootstrapped once per system × split
// over all levels side by side, are bit for bit those of one bootstrap per
// paired row, with missing values (incomplete columns) in some levels.
func TestCompareSharedDrawsEqualSeparateBootstraps(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for r, run := range []string{"A", "B"} {
		var eps []judged
		for i := range 30 {
			e := judged{fmt.Sprintf("c%d", i), []string{"mascot", "zero-shot"}[i%2],
				[]string{"positive", "negative", "neutral"}[i%3],
				[]float64{float64(1 + (i+r)%5), float64(1 + (i*3)%5)}, float64(1 + (i*2+r)%5),
				[]float64{float64(1 + (i*4+r)%5)}}
			if (i+r)%4 == 0 {
				e.fidelity = nil // missing collective values
			}
			eps = append(eps, e)
		}
		addRun(t, s, run, eps)
	}
	opts := Options{Resamples: 300, Seed: 11}.withDefaults()
	cmp, err := Compare(ctx, s, "A", "B", opts)
	if err != nil {
		t.Fatal(err)
	}
	ga, err := s.ScoreGroups(ctx, "A", opts.SplitBy)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := s.ScoreGroups(ctx, "B", opts.SplitBy)
	if err != nil {
		t.Fatal(err)
	}
	label := func(sys string) string { return sys }
	ea, eb := entries(ga, label), entries(gb, label)
	checked := 0
	for _, tb := range cmp.Paired {
		i := 0
		for _, sys := range sortedKeys(ea[tb.Level]) {
			rows, jobs := pairedRows(sys, ea[tb.Level][sys], eb[tb.Level][sys], tb.Criteria, tb.Level != results.LevelMetric)
			for k, j := range jobs {
				lo, hi := BootstrapStream(j.diff, len(tb.Criteria), opts.Resamples, opts.Seed, drawStream(j.keys), opts.Confidence)
				got := tb.Rows[i+k]
				if got.System != rows[k].System || got.Split != rows[k].Split {
					t.Fatalf("%s row %d is %s/%s, want %s/%s", tb.Level, i+k, got.System, got.Split, rows[k].System, rows[k].Split)
				}
				for c, cell := range got.Cells {
					if math.Float64bits(cell.CILow) != math.Float64bits(lo[c]) ||
						math.Float64bits(cell.CIHigh) != math.Float64bits(hi[c]) {
						t.Fatalf("%s %s/%s %s: CI [%v, %v], separate bootstrap [%v, %v]", tb.Level, got.System,
							got.Split, tb.Criteria[c], cell.CILow, cell.CIHigh, lo[c], hi[c])
					}
					if !math.IsNaN(lo[c]) {
						checked++
					}
				}
			}
			i += len(rows)
		}
		if i != len(tb.Rows) {
			t.Fatalf("%s: %d rows, recomputed %d", tb.Level, len(tb.Rows), i)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d intervals checked", checked)
	}
}
