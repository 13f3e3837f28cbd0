package report

import (
	"testing"

	"mascot.dev/mascot/internal/benchdb"
)

// BenchmarkBootstrap is one cell group of the 100k report: 8,334
// episodes × 6 columns, 1000 resamples.
func BenchmarkBootstrap(b *testing.B) {
	rows := make([][]float64, 8334)
	for i := range rows {
		rows[i] = make([]float64, 6)
		for c := range rows[i] {
			rows[i][c] = float64((i*7 + c*13) % 101)
		}
	}
	defer benchdb.ReportCPU(b)()
	for i := 0; i < b.N; i++ {
		Bootstrap(rows, 6, 1000, 1, 0.95)
	}
}

// BenchmarkBootstrapPaired is the largest batch of a 100k comparison's
// paired bootstrap: 25,000 matched episodes × 14 columns (the differences
// of three levels' criteria side by side), 1000 resamples.
func BenchmarkBootstrapPaired(b *testing.B) {
	rows := make([][]float64, 25000)
	for i := range rows {
		rows[i] = make([]float64, 14)
		for c := range rows[i] {
			rows[i][c] = float64((i*7+c*13)%101 - 50)
		}
	}
	defer benchdb.ReportCPU(b)()
	for i := 0; i < b.N; i++ {
		Bootstrap(rows, 14, 1000, 1, 0.95)
	}
}
