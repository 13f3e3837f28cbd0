package qwen3

import (
	"math"
	"slices"
	"testing"
)

// TestAttendHeadMatchesExact checks one head's attention in every kernel
// family against float64 arithmetic, for head sizes that take wsumz's
// blocks of 64 and of 16 (80: one of each) and context lengths around the
// score kernel's groups of eight, and that a position's output does not
// depend on the slice of the cache row it sits in (the head's offset).
func TestAttendHeadMatchesExact(t *testing.T) {
	for _, fam := range kernelFamilies(t) {
		useKernels(fam)
		for _, d := range []int{64, 80, 16, 12} {
			const heads = 3
			ld := heads * d
			for _, n := range []int{1, 7, 8, 9, 23, 40} {
				q := make([]float32, d)
				kc, vc := make([]float32, n*ld), make([]float32, n*ld)
				for i := range q {
					q[i] = float32((i*37)%29)/29 - 0.5
				}
				for i := range kc {
					kc[i] = float32((i*7919)%1013)/1013 - 0.5
					vc[i] = float32((i*104729)%997)/997 - 0.5
				}
				scaling := float32(1 / math.Sqrt(float64(d)))
				var first []float32
				for h := range heads {
					p, o := make([]float32, n+5), make([]float32, d+3)
					attendHead(q, kc[h*d:], vc[h*d:], ld, n, d, scaling, p, o)
					if slices.ContainsFunc(o[d:], func(v float32) bool { return v != 0 }) {
						t.Fatalf("%s d=%d n=%d: wrote past the head's %d outputs: %v", fam, d, n, d, o[d:])
					}
					want := exactAttend(q, kc[h*d:], vc[h*d:], ld, n, d, float64(scaling))
					for c := range d {
						if diff := math.Abs(float64(o[c]) - want[c]); diff > 1e-5 {
							t.Fatalf("%s d=%d n=%d head %d: o[%d] = %g, exact %g", fam, d, n, h, c, o[c], want[c])
						}
					}
					if h == 0 {
						first = o[:d]
					}
				}
				// The same keys and values at another offset give the same bits.
				kc2, vc2 := make([]float32, n*ld), make([]float32, n*ld)
				for t := range n {
					copy(kc2[t*ld+2*d:t*ld+3*d], kc[t*ld:t*ld+d])
					copy(vc2[t*ld+2*d:t*ld+3*d], vc[t*ld:t*ld+d])
				}
				p, o := make([]float32, n), make([]float32, d)
				attendHead(q, kc2[2*d:], vc2[2*d:], ld, n, d, scaling, p, o)
				if !slices.Equal(o, first) {
					t.Fatalf("%s d=%d n=%d: the same head at another offset gave other bits", fam, d, n)
				}
			}
		}
	}
}

// exactAttend is attendHead in float64.
func exactAttend(q, kc, vc []float32, ld, n, d int, scaling float64) []float64 {
	s := make([]float64, n)
	mx := math.Inf(-1)
	for t := range n {
		for c := range d {
			s[t] += float64(q[c]) * float64(kc[t*ld+c])
		}
		s[t] *= scaling
		mx = max(mx, s[t])
	}
	var sum float64
	for t := range s {
		s[t] = math.Exp(s[t] - mx)
		sum += s[t]
	}
	o := make([]float64, d)
	for t := range n {
		for c := range d {
			o[c] += s[t] / sum * float64(vc[t*ld+c])
		}
	}
	return o
}
