//go:build amd64

package report

import "golang.org/x/sys/cpu"

// wideKernel turns on dotBatch's eight-column AVX kernel where the CPU has
// AVX (tests turn it off to check the four-column one).
var wideKernel = cpu.X86.HasAVX

// dotLanes4 is implemented in dot_amd64.s (SSE2, part of every amd64).
//
//go:noescape
func dotLanes4(w, a, b, c, d []float64, out *[16]float64)

// dotLanes8 is implemented in dot8_amd64.s (AVX; only when wideKernel).
//
//go:noescape
func dotLanes8(w, x0, x1, x2, x3, x4, x5, x6, x7 []float64, out *[32]float64)
