package cpu

// #cgo CFLAGS: -O3 -fopenmp-simd
// #cgo LDFLAGS: -lm
// #include "kernels.h"
import "C"

import "unsafe"

// The wrappers below pass Go slices to kernels.c; each checks nothing
// (the ops have) and needs non-empty slices.

func fptr(s []float32) *C.float { return (*C.float)(unsafe.Pointer(&s[0])) }

func attnSoftmax(s []float32, rows, ld, nk, first, length int, lse []float32) {
	C.mascot_attn_softmax(fptr(s), C.int(rows), C.int(ld), C.int(nk), C.int(first), C.int(length), fptr(lse))
}

func attnGrad(s, dp []float32, rows, ld, nk, first, length int, lse []float32, scale float32) {
	C.mascot_attn_grad(fptr(s), fptr(dp), C.int(rows), C.int(ld), C.int(nk), C.int(first), C.int(length), fptr(lse), C.float(scale))
}

func rowMaxSumExp(z []float32, rows, n, ld int, mx, sum []float32) {
	C.mascot_row_max_sumexp(fptr(z), C.int(rows), C.int(n), C.int(ld), fptr(mx), fptr(sum))
}

func headGrad(z []float32, rows, n, ld int, lse, coef []float32, tgt []int32) {
	C.mascot_head_grad(fptr(z), C.int(rows), C.int(n), C.int(ld), fptr(lse), fptr(coef), (*C.int)(unsafe.Pointer(&tgt[0])))
}

func swiglu(out, g, u []float32) {
	C.mascot_swiglu(fptr(out), fptr(g), fptr(u), C.long(len(out)))
}

func swigluBwd(dg, du, dout, g, u []float32) {
	C.mascot_swiglu_bwd(fptr(dg), fptr(du), fptr(dout), fptr(g), fptr(u), C.long(len(dg)))
}

func sumSquares(x []float32) float64 {
	return float64(C.mascot_sumsq(fptr(x), C.long(len(x))))
}

func rmsNormRows(out, rstd, x, w []float32, rows, dim int, eps float32) {
	C.mascot_rmsnorm(fptr(out), fptr(rstd), fptr(x), fptr(w), C.long(rows), C.int(dim), C.float(eps))
}

func rmsNormBackwardRows(dx, dy, x, w, rstd []float32, rows, dim int, accumulate bool) {
	acc := 0
	if accumulate {
		acc = 1
	}
	C.mascot_rmsnorm_bwd(fptr(dx), fptr(dy), fptr(x), fptr(w), fptr(rstd), C.long(rows), C.int(dim), C.int(acc))
}

func rmsNormDW(acc []float64, dy, x, rstd []float32, rows, dim, lo, hi int) {
	C.mascot_rmsnorm_dw((*C.double)(unsafe.Pointer(&acc[0])), fptr(dy), fptr(x), fptr(rstd), C.long(rows), C.int(dim), C.int(lo), C.int(hi))
}

func ropeRows(x []float32, pos []int32, cs, sn []float32, rows, heads, dim int, sign float32) {
	C.mascot_rope(fptr(x), (*C.int)(unsafe.Pointer(&pos[0])), fptr(cs), fptr(sn), C.long(rows), C.int(heads), C.int(dim), C.float(sign))
}

func fromBF16Slice(dst []float32, src []uint16) {
	if len(src) == 0 {
		return
	}
	_ = dst[len(src)-1]
	C.mascot_bf16_to_f32(fptr(dst), (*C.ushort)(unsafe.Pointer(&src[0])), C.long(len(src)))
}

func dropout(dst, src []float32, base int, seed uint64, p, scale float32) {
	C.mascot_dropout(fptr(dst), fptr(src), C.long(len(dst)), C.long(base), C.ulonglong(seed), C.float(p), C.float(scale))
}
