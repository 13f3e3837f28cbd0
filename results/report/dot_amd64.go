//go:build amd64

package report

// dotLanes4 is implemented in dot_amd64.s (SSE2, part of every amd64).
//
//go:noescape
func dotLanes4(w, a, b, c, d []float64, out *[16]float64)
