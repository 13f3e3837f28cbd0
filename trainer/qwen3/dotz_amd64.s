#include "textflag.h"
#include "dot8z_amd64.h"

// The AVX-512 kernels: the three kernels of dot_amd64.s with sixteen
// lanes, for CPUs with AVX-512F and inner sizes that are multiples of 16.
// Every output they compute has this arithmetic, whichever of them
// computes it:
//
//   acc[0..15] = 0
//   for k = 0, 16, 32, … < n:  acc[l] = fma(x[k+l], w[k+l], acc[l])
//   t[l] = acc[l] + acc[l+8]        (l < 8)
//   then dot_amd64.s's tree over the eight t[l]
//   y    = s, or y + s when accumulating
//
// The accumulators are Z0–Z15, so the reductions work in Z16 on (EVEX
// encodings).

// REDUCEZ leaves s of the accumulator Z (whose low half is Y) in X16[0].
#define REDUCEZ(Z, Y) \
	VEXTRACTF64X4 $1, Z, Y16 \
	VADDPS        Y, Y16, Y16 \
	VEXTRACTF32X4 $1, Y16, X17 \
	VADDPS        X16, X17, X16 \
	VMOVHLPS      X16, X16, X17 \
	VADDPS        X17, X16, X16 \
	VMOVSHDUP     X16, X17 \
	VADDSS        X17, X16, X16

#define PUTZ(Z, Y, m) \
	REDUCEZ(Z, Y) \
	VMOVSS X16, m

#define ADDZ(Z, Y, m) \
	REDUCEZ(Z, Y) \
	VADDSS m, X16, X16 \
	VMOVSS X16, m

// The one-row kernels dot1x8z and dot1x8zs share everything but their
// prefetches; the macros below are their common parts.

// ONE8Z_SETUP sets the eight weight streams' pointers (BX, DX, DI, R8–R12),
// the input row (SI), the bytes (CX), the index (AX) and the accumulators.
#define ONE8Z_SETUP \
	MOVQ x+0(FP), SI \
	MOVQ w+8(FP), BX \
	MOVQ ldw+16(FP), AX \
	SHLQ $2, AX \
	LEAQ (BX)(AX*1), DX \
	LEAQ (DX)(AX*1), DI \
	LEAQ (DI)(AX*1), R8 \
	LEAQ (R8)(AX*1), R9 \
	LEAQ (R9)(AX*1), R10 \
	LEAQ (R10)(AX*1), R11 \
	LEAQ (R11)(AX*1), R12 \
	MOVQ n+24(FP), CX \
	SHLQ $2, CX \
	ZERO8 \
	XORQ AX, AX

// ONE8Z_FMA multiplies sixteen inputs into the eight accumulators and
// compares the next index with the end.
#define ONE8Z_FMA \
	VMOVUPS     (SI)(AX*1), Z8 \
	VFMADD231PS (BX)(AX*1), Z8, Z0 \
	VFMADD231PS (DX)(AX*1), Z8, Z1 \
	VFMADD231PS (DI)(AX*1), Z8, Z2 \
	VFMADD231PS (R8)(AX*1), Z8, Z3 \
	VFMADD231PS (R9)(AX*1), Z8, Z4 \
	VFMADD231PS (R10)(AX*1), Z8, Z5 \
	VFMADD231PS (R11)(AX*1), Z8, Z6 \
	VFMADD231PS (R12)(AX*1), Z8, Z7 \
	ADDQ        $64, AX \
	CMPQ        AX, CX

// ONE8Z_PF prefetches the eight streams with OP, D bytes ahead: the two
// kernels differ only in these (PREFETCHT0 1024 and PREFETCHT1 2048).
#define ONE8Z_PF(OP, D) \
	OP D(BX)(AX*1) \
	OP D(DX)(AX*1) \
	OP D(DI)(AX*1) \
	OP D(R8)(AX*1) \
	OP D(R9)(AX*1) \
	OP D(R10)(AX*1) \
	OP D(R11)(AX*1) \
	OP D(R12)(AX*1)

// ONE8Z_RESULT loads the results' place and whether to add to them.
#define ONE8Z_RESULT \
	MOVQ    y+32(FP), SI \
	MOVQ    ldy+40(FP), R12 \
	SHLQ    $2, R12 \
	MOVBLZX acc+48(FP), R13 \
	TESTQ   R13, R13
// ONE8Z_OUT puts (OP = PUTZ) or adds (OP = ADDZ) the eight sums at y, ldy apart.
#define ONE8Z_OUT(OP) \
	OP(Z0, Y0, 0(SI)) \
	ADDQ R12, SI \
	OP(Z1, Y1, 0(SI)) \
	ADDQ R12, SI \
	OP(Z2, Y2, 0(SI)) \
	ADDQ R12, SI \
	OP(Z3, Y3, 0(SI)) \
	ADDQ R12, SI \
	OP(Z4, Y4, 0(SI)) \
	ADDQ R12, SI \
	OP(Z5, Y5, 0(SI)) \
	ADDQ R12, SI \
	OP(Z6, Y6, 0(SI)) \
	ADDQ R12, SI \
	OP(Z7, Y7, 0(SI))

// func dot4x4z(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool)
//
// Four input rows against four weight rows ldw apart (long streams, as
// dot4x3's): y[r·ldy + j·ycs], r, j < 4. Each stream is prefetched into
// L2 4 KiB ahead and into L1 1 KiB ahead, as dot8x3z's: with L1
// prefetches alone, 2 KiB ahead, L1's few miss buffers bounded the lines
// in flight, and where memory answered slowly four rows read 13–15 GB/s
// on one thread against 22–23 with both (docs/benchmarks.md).
TEXT ·dot4x4z(SB), NOSPLIT, $0-65
	MOVQ x+0(FP), R8
	MOVQ ldx+8(FP), AX
	SHLQ $2, AX
	LEAQ (R8)(AX*1), R9
	LEAQ (R9)(AX*1), R10
	LEAQ (R10)(AX*1), R11
	MOVQ w+16(FP), BX
	MOVQ ldw+24(FP), AX
	SHLQ $2, AX
	LEAQ (BX)(AX*1), DX
	LEAQ (DX)(AX*1), DI
	LEAQ (DI)(AX*1), SI
	MOVQ n+32(FP), CX
	SHLQ $2, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	XORQ AX, AX

loop44z:
	PREFETCHT1  4096(BX)(AX*1)
	PREFETCHT1  4096(DX)(AX*1)
	PREFETCHT1  4096(DI)(AX*1)
	PREFETCHT1  4096(SI)(AX*1)
	PREFETCHT0  1024(BX)(AX*1)
	PREFETCHT0  1024(DX)(AX*1)
	PREFETCHT0  1024(DI)(AX*1)
	PREFETCHT0  1024(SI)(AX*1)
	VMOVUPS     (BX)(AX*1), Z16
	VMOVUPS     (DX)(AX*1), Z17
	VMOVUPS     (DI)(AX*1), Z18
	VMOVUPS     (SI)(AX*1), Z19
	VMOVUPS     (R8)(AX*1), Z20
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z18, Z20, Z2
	VFMADD231PS Z19, Z20, Z3
	VMOVUPS     (R9)(AX*1), Z20
	VFMADD231PS Z16, Z20, Z4
	VFMADD231PS Z17, Z20, Z5
	VFMADD231PS Z18, Z20, Z6
	VFMADD231PS Z19, Z20, Z7
	VMOVUPS     (R10)(AX*1), Z20
	VFMADD231PS Z16, Z20, Z8
	VFMADD231PS Z17, Z20, Z9
	VFMADD231PS Z18, Z20, Z10
	VFMADD231PS Z19, Z20, Z11
	VMOVUPS     (R11)(AX*1), Z20
	VFMADD231PS Z16, Z20, Z12
	VFMADD231PS Z17, Z20, Z13
	VFMADD231PS Z18, Z20, Z14
	VFMADD231PS Z19, Z20, Z15
	ADDQ        $64, AX
	CMPQ        AX, CX
	JLT         loop44z

	MOVQ    y+40(FP), R12
	MOVQ    ldy+48(FP), R13
	SHLQ    $2, R13
	MOVQ    ycs+56(FP), BX
	SHLQ    $2, BX
	LEAQ    (BX)(BX*2), DX
	MOVBLZX acc+64(FP), CX
	TESTQ   CX, CX
	JNZ     add44z
	PUTZ(Z0, Y0, 0(R12))
	PUTZ(Z1, Y1, (R12)(BX*1))
	PUTZ(Z2, Y2, (R12)(BX*2))
	PUTZ(Z3, Y3, (R12)(DX*1))
	ADDQ R13, R12
	PUTZ(Z4, Y4, 0(R12))
	PUTZ(Z5, Y5, (R12)(BX*1))
	PUTZ(Z6, Y6, (R12)(BX*2))
	PUTZ(Z7, Y7, (R12)(DX*1))
	ADDQ R13, R12
	PUTZ(Z8, Y8, 0(R12))
	PUTZ(Z9, Y9, (R12)(BX*1))
	PUTZ(Z10, Y10, (R12)(BX*2))
	PUTZ(Z11, Y11, (R12)(DX*1))
	ADDQ R13, R12
	PUTZ(Z12, Y12, 0(R12))
	PUTZ(Z13, Y13, (R12)(BX*1))
	PUTZ(Z14, Y14, (R12)(BX*2))
	PUTZ(Z15, Y15, (R12)(DX*1))
	VZEROUPPER
	RET

add44z:
	ADDZ(Z0, Y0, 0(R12))
	ADDZ(Z1, Y1, (R12)(BX*1))
	ADDZ(Z2, Y2, (R12)(BX*2))
	ADDZ(Z3, Y3, (R12)(DX*1))
	ADDQ R13, R12
	ADDZ(Z4, Y4, 0(R12))
	ADDZ(Z5, Y5, (R12)(BX*1))
	ADDZ(Z6, Y6, (R12)(BX*2))
	ADDZ(Z7, Y7, (R12)(DX*1))
	ADDQ R13, R12
	ADDZ(Z8, Y8, 0(R12))
	ADDZ(Z9, Y9, (R12)(BX*1))
	ADDZ(Z10, Y10, (R12)(BX*2))
	ADDZ(Z11, Y11, (R12)(DX*1))
	ADDQ R13, R12
	ADDZ(Z12, Y12, 0(R12))
	ADDZ(Z13, Y13, (R12)(BX*1))
	ADDZ(Z14, Y14, (R12)(BX*2))
	ADDZ(Z15, Y15, (R12)(DX*1))
	VZEROUPPER
	RET

// func dot1x8z(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool)
//
// dot1x8 with sixteen lanes: one input row against eight weight rows ldw
// apart, y[k·ldy], k < 8, each stream prefetched into L1 1 KiB ahead. For
// weights a cache holds (a small model's, read again every step).
TEXT ·dot1x8z(SB), NOSPLIT, $0-49
	ONE8Z_SETUP

loop18z:
	ONE8Z_PF(PREFETCHT0, 1024)
	ONE8Z_FMA
	JLT loop18z
	ONE8Z_RESULT
	JNZ add18z
	ONE8Z_OUT(PUTZ)
	VZEROUPPER
	RET

add18z:
	ONE8Z_OUT(ADDZ)
	VZEROUPPER
	RET

// func dot1x8zs(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool)
//
// dot1x8z for weights streamed from memory (a model larger than the
// caches): each stream prefetched into L2 2 KiB ahead instead. With the L1
// prefetches the lines in flight were bounded by L1's few miss buffers,
// and where memory answered slowly one thread read 20–21 GB/s against
// 27–30 with these; with a multiply-add per sixteen weights the loads
// from L2 keep up. On weights in cache the L1 prefetches are faster
// (docs/benchmarks.md), hence two kernels.
TEXT ·dot1x8zs(SB), NOSPLIT, $0-49
	ONE8Z_SETUP

loop18zs:
	ONE8Z_PF(PREFETCHT1, 2048)
	ONE8Z_FMA
	JLT loop18zs
	ONE8Z_RESULT
	JNZ add18zs
	ONE8Z_OUT(PUTZ)
	VZEROUPPER
	RET

add18zs:
	ONE8Z_OUT(ADDZ)
	VZEROUPPER
	RET

// func dot1x1z(x *float32, w *float32, n int, y *float32, acc bool)
TEXT ·dot1x1z(SB), NOSPLIT, $0-33
	MOVQ   x+0(FP), SI
	MOVQ   w+8(FP), BX
	MOVQ   n+16(FP), CX
	SHLQ   $2, CX
	VPXORD Z0, Z0, Z0
	XORQ   AX, AX

loop11z:
	VMOVUPS     (SI)(AX*1), Z8
	VFMADD231PS (BX)(AX*1), Z8, Z0
	ADDQ        $64, AX
	CMPQ        AX, CX
	JLT         loop11z

	MOVQ    y+24(FP), SI
	MOVBLZX acc+32(FP), R13
	TESTQ   R13, R13
	JNZ     add11z
	PUTZ(Z0, Y0, 0(SI))
	VZEROUPPER
	RET

add11z:
	ADDZ(Z0, Y0, 0(SI))
	VZEROUPPER
	RET
