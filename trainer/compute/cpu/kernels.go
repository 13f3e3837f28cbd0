package cpu

// #cgo CFLAGS: -O3
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
