package report

import (
	"testing"

	"mascot.dev/mascot/internal/benchdb"
)

// BenchmarkBootstrap is one cell group of the 100k report: 8,334
// episodes × 6 columns, 1000 resamples.
func BenchmarkBootstrap(b *testing.B) {
	rows := benchRows(8334, 6, 0)
	defer benchdb.ReportCPU(b)()
	for i := 0; i < b.N; i++ {
		Bootstrap(rows, 6, 1000, 1, 0.95)
	}
}

// BenchmarkBootstrapPaired is the largest batch of a 100k comparison's
// paired bootstrap: 25,000 matched episodes × 14 columns (the differences
// of three levels' criteria side by side), 1000 resamples.
func BenchmarkBootstrapPaired(b *testing.B) {
	rows := benchRows(25000, 14, -50) // differences: either sign
	defer benchdb.ReportCPU(b)()
	for i := 0; i < b.N; i++ {
		Bootstrap(rows, 14, 1000, 1, 0.95)
	}
}

// benchRows is an n × cols matrix of scores 0..100 (plus offset): every
// column repeats with period 101, each at a phase of its own.
func benchRows(n, cols int, offset float64) [][]float64 {
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, cols)
		for c := range rows[i] {
			rows[i][c] = float64((i*7+c*13)%101) + offset
		}
	}
	return rows
}
