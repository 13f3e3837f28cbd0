//go:build amd64

package qwen3

import "golang.org/x/sys/cpu"

// fmaKernels says whether the AVX2/FMA kernels of dot_amd64.s run on this
// CPU, and zmmKernels whether the AVX-512 ones of dotz_amd64.s do; tests
// turn them off to check the others.
var (
	fmaKernels = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	zmmKernels = fmaKernels && cpu.X86.HasAVX512F
)

// dot4x3 sets (or, with acc, adds to) y[r·ldy+j·ycs] the dot product of
// input row r (x + r·ldx) with weight row j (w + j·ldw), r < 4, j < 3,
// over n floats (a multiple of 8). See dot_amd64.s for the arithmetic.
//
//go:noescape
func dot4x3(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool)

// dot1x8 is dot4x3 for one input row and eight weight rows ldw apart
// (w + k·ldw), writing y[k·ldy], k < 8.
//
//go:noescape
func dot1x8(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool)

// dot1x1 is dot4x3 for one input row and one weight row.
//
//go:noescape
func dot1x1(x *float32, w *float32, n int, y *float32, acc bool)

// dot4x4z is dot4x3 with sixteen lanes for four weight rows (n a
// multiple of 16; see dotz_amd64.s).
//
//go:noescape
func dot4x4z(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool)

// dot8x3z is dot4x4z for eight input rows (x + r·ldx, r < 8) and three
// weight rows: each weight is read once for eight rows (dot8z_amd64.s).
//
//go:noescape
func dot8x3z(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool)

// dot8x3zk is dot8x3z over one chunk of kChunk inner floats, the eight
// input rows packed kChunk apart at xp, the accumulators carried between
// chunks in part (24 × 16 floats): mode&1 continues from part, mode&2
// finishes into y, else part is written. rowb is the bytes from a weight
// row to the next of its stream, where the kernel prefetches
// (dot8zk_amd64.s).
//
//go:noescape
func dot8x3zk(xp *float32, w *float32, ldw int, rowb int, part *float32, mode int, y *float32, ldy int, ycs int, acc bool)

// dot1x8z is dot1x8 with sixteen lanes.
//
//go:noescape
func dot1x8z(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool)

// dot1x8zs is dot1x8z for weights streamed from memory: the same
// arithmetic, other prefetches.
//
//go:noescape
func dot1x8zs(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool)

// dot1x1z is dot1x1 with sixteen lanes.
//
//go:noescape
func dot1x1z(x *float32, w *float32, n int, y *float32, acc bool)

// wsumz sets o[c] = Σ_{t<n} p[t]·v[t·ldv+c] for c < d, a multiple of 16
// (attend_amd64.s): attention's weighted sum of values.
//
//go:noescape
func wsumz(o *float32, p *float32, v *float32, ldv int, n int, d int)

// swiglu8 is swiGLU's last loop over n values, a positive multiple of 8,
// in AVX-512 with the Go loop's bits (swiglu_amd64.s).
//
//go:noescape
func swiglu8(gate *float32, ex *float64, up *float32, n int)
