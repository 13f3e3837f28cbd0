//go:build amd64

package qwen3

import "golang.org/x/sys/cpu"

// fmaKernels says whether the AVX2/FMA kernels of dot_amd64.s run on this
// CPU; tests turn it off to check the portable kernel.
var fmaKernels = cpu.X86.HasAVX2 && cpu.X86.HasFMA

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
