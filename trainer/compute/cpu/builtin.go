package cpu

// #cgo CFLAGS: -Wno-psabi
// #include "sgemm.h"
import "C"

import "sync"

// builtinBLAS is the backend's own sgemm (sgemm.c), the default: a
// register-blocked kernel compiled once per x86-64 level. Where OpenBLAS
// was missing, gonum's float32 product (dot and axpy loops) took 65% of
// the demo's CPU time; this kernel is ten times faster than gonum on the
// demo's products and faster than Debian's OpenBLAS on them and on
// Qwen3-0.6B's (docs/benchmarks.md). The rows of C are split among the
// threads in fixed contiguous parts; each element is formed by one thread
// in one order, so the bits do not depend on the thread count or on where
// a row falls in the batch.
type builtinBLAS struct{ nthreads int }

func newBuiltinBLAS(threads int) *builtinBLAS { return &builtinBLAS{nthreads: max(1, threads)} }

func (*builtinBLAS) name() string { return "builtin" }
func (*builtinBLAS) describe() string {
	return "built-in sgemm (register-blocked, one clone per x86-64 level)"
}
func (l *builtinBLAS) setThreads(n int) { l.nthreads = max(1, n) }
func (l *builtinBLAS) threads() int     { return l.nthreads }

// sgemmWorkPerThread is the multiply-adds below which one more thread
// costs more than it saves (a goroutine's start and join, about a
// microsecond, against some 30,000 multiply-adds per microsecond).
const sgemmWorkPerThread = 1 << 16

// packs holds packed op(B) panels between calls.
var packs sync.Pool

func (l *builtinBLAS) sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleRows(c, m, n, ldc, beta)
		return
	}
	size := int(C.mascot_sgemm_packed_len(C.int(k), C.int(n)))
	bufp, _ := packs.Get().(*[]float32)
	if bufp == nil || cap(*bufp) < size {
		buf := make([]float32, size)
		bufp = &buf
	}
	bp := (*bufp)[:size]
	C.mascot_sgemm_pack(cbool(transB), C.int(k), C.int(n), fptr(b), C.int(ldb), fptr(bp))
	rows := func(lo, hi int) {
		C.mascot_sgemm_rows(cbool(transA), C.int(lo), C.int(hi), C.int(n), C.int(k), C.float(alpha),
			fptr(a), C.int(lda), fptr(bp), C.float(beta), fptr(c), C.int(ldc))
	}
	// Parts of whole micro-tiles: a part's last tile is full but for the
	// matrix's last.
	tiles := (m + C.SGEMM_MR - 1) / C.SGEMM_MR
	parts := min(l.nthreads, tiles, max(1, m*n*k/sgemmWorkPerThread))
	runParts(tiles, parts, func(_, lo, hi int) { rows(lo*C.SGEMM_MR, min(m, hi*C.SGEMM_MR)) })
	packs.Put(bufp)
}
