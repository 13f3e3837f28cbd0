//go:build amd64

package membw

import "golang.org/x/sys/cpu"

var avx2 = cpu.X86.HasAVX2

// sum adds up b (in no particular order; only the reads matter).
func sum(b []float32) float32 {
	if !avx2 || len(b) < 64 {
		return sumGo(b)
	}
	n := len(b) &^ 63
	return sum8(&b[0], n) + sumGo(b[n:])
}

// sum8 adds n floats (a multiple of 64) from p as eight streams (see
// sum_amd64.s).
//
//go:noescape
func sum8(p *float32, n int) float32
