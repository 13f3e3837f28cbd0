//go:build amd64

package membw

import "golang.org/x/sys/cpu"

var avx2 = cpu.X86.HasAVX2

// sum adds up b (in no particular order; only the reads matter).
func sum(b []float32) float32 {
	if !avx2 || len(b) < 32 {
		return sumGo(b)
	}
	n := len(b) &^ 31
	return sum32(&b[0], n) + sumGo(b[n:])
}

// sum32 adds n floats (a multiple of 32) from p, 128 bytes per iteration.
//
//go:noescape
func sum32(p *float32, n int) float32
