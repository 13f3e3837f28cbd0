package serve_test

import (
	"os"
	"strconv"
	"testing"

	"mascot.dev/mascot/trainer/serve/enginesuite"
)

// BenchmarkEngineSuite prints the engine suite's table (package
// enginesuite says what it measures):
//
//	go test ./trainer/serve -run '^$' -bench EngineSuite -benchtime 1x
//
// MASCOT_BENCH_ROUNDS sets the number of rounds (default 9).
func BenchmarkEngineSuite(b *testing.B) {
	rounds := 9
	if v, err := strconv.Atoi(os.Getenv("MASCOT_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	for b.Loop() {
		res, err := enginesuite.Run(rounds)
		if err != nil {
			b.Fatal(err)
		}
		res.Print(os.Stdout)
		for _, x := range res.Ratios {
			_, med, _ := enginesuite.Spread(x.Wall)
			b.ReportMetric(med, x.Key)
		}
	}
}
