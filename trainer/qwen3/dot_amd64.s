#include "textflag.h"

// The three kernels compute outputs y = x·w (one input row x, one weight
// row w, n floats each, n a multiple of 8) with the same arithmetic for
// every output, whichever kernel computes it and whatever else it
// computes alongside:
//
//   acc[0..7] = 0
//   for k = 0, 8, 16, … < n:  acc[l] = fma(x[k+l], w[k+l], acc[l])
//   t[l] = acc[l] + acc[l+4]        (l < 4)
//   u[l] = t[l] + t[l+2]            (l < 2)
//   s    = u[0] + u[1]
//   y    = s, or y + s when accumulating
//
// So a row's outputs have the same bits in any batch (see matmul.go).

// REDUCE leaves s of the accumulator Y (whose low half is X) in X12[0].
#define REDUCE(Y, X) \
	VEXTRACTF128 $1, Y, X12 \
	VADDPS       X, X12, X12 \
	VMOVHLPS     X12, X12, X13 \
	VADDPS       X13, X12, X12 \
	VMOVSHDUP    X12, X13 \
	VADDSS       X13, X12, X12

// PUT stores s of Y to m (set), or m + s (add).
#define PUT(Y, X, m) \
	REDUCE(Y, X) \
	VMOVSS X12, m

#define ADD(Y, X, m) \
	REDUCE(Y, X) \
	VADDSS m, X12, X12 \
	VMOVSS X12, m

// func dot4x3(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool)
//
// Four input rows (x, x+ldx, …) against three weight rows (w, w+ldw,
// w+2·ldw): y[r·ldy + j·ycs] for r < 4, j < 3. As with dot1x8 the caller
// spaces the weight rows a third of its range apart, so they are three
// long streams over successive calls (about 1.2× faster with eight
// sequences, interleaved on the shared machine, than adjacent rows with
// the next ones prefetched), each prefetched 1 KiB ahead (1.2–1.7× more
// against none; 2 KiB did as well, 4 KiB worse).
TEXT ·dot4x3(SB), NOSPLIT, $0-65
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
	MOVQ n+32(FP), CX
	SHLQ $2, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ   AX, AX

loop43:
	PREFETCHT0  1024(BX)(AX*1)
	PREFETCHT0  1024(DX)(AX*1)
	PREFETCHT0  1024(DI)(AX*1)
	VMOVUPS     (BX)(AX*1), Y12
	VMOVUPS     (DX)(AX*1), Y13
	VMOVUPS     (DI)(AX*1), Y14
	VMOVUPS     (R8)(AX*1), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VMOVUPS     (R9)(AX*1), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VMOVUPS     (R10)(AX*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VMOVUPS     (R11)(AX*1), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         loop43

	MOVQ    y+40(FP), SI
	MOVQ    ldy+48(FP), R12
	SHLQ    $2, R12
	MOVQ    ycs+56(FP), BX
	SHLQ    $2, BX
	MOVBLZX acc+64(FP), R13
	TESTQ   R13, R13
	JNZ     add43
	PUT(Y0, X0, 0(SI))
	PUT(Y1, X1, (SI)(BX*1))
	PUT(Y2, X2, (SI)(BX*2))
	ADDQ    R12, SI
	PUT(Y3, X3, 0(SI))
	PUT(Y4, X4, (SI)(BX*1))
	PUT(Y5, X5, (SI)(BX*2))
	ADDQ    R12, SI
	PUT(Y6, X6, 0(SI))
	PUT(Y7, X7, (SI)(BX*1))
	PUT(Y8, X8, (SI)(BX*2))
	ADDQ    R12, SI
	PUT(Y9, X9, 0(SI))
	PUT(Y10, X10, (SI)(BX*1))
	PUT(Y11, X11, (SI)(BX*2))
	VZEROUPPER
	RET

add43:
	ADD(Y0, X0, 0(SI))
	ADD(Y1, X1, (SI)(BX*1))
	ADD(Y2, X2, (SI)(BX*2))
	ADDQ R12, SI
	ADD(Y3, X3, 0(SI))
	ADD(Y4, X4, (SI)(BX*1))
	ADD(Y5, X5, (SI)(BX*2))
	ADDQ R12, SI
	ADD(Y6, X6, 0(SI))
	ADD(Y7, X7, (SI)(BX*1))
	ADD(Y8, X8, (SI)(BX*2))
	ADDQ R12, SI
	ADD(Y9, X9, 0(SI))
	ADD(Y10, X10, (SI)(BX*1))
	ADD(Y11, X11, (SI)(BX*2))
	VZEROUPPER
	RET

// func dot1x8(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool)
//
// One input row against eight weight rows ldw apart: y[k·ldy] for k < 8.
// Eight independent accumulators keep the FMA units busy while the
// weights stream in (one decoding sequence is bound by the memory reads).
// The caller spaces the rows an eighth of its range apart and steps
// through the range, so the kernel reads eight long sequential streams at
// once: on the shared development machine that reads a matrix about 1.5×
// faster than eight adjacent rows with the next ones prefetched. Each
// stream is also prefetched 1 KiB ahead (the next row of the stream once
// the row ends), another 1.2× in interleaved runs against none.
TEXT ·dot1x8(SB), NOSPLIT, $0-49
	MOVQ x+0(FP), SI
	MOVQ w+8(FP), BX
	MOVQ ldw+16(FP), AX
	SHLQ $2, AX
	LEAQ (BX)(AX*1), DX
	LEAQ (DX)(AX*1), DI
	LEAQ (DI)(AX*1), R8
	LEAQ (R8)(AX*1), R9
	LEAQ (R9)(AX*1), R10
	LEAQ (R10)(AX*1), R11
	LEAQ (R11)(AX*1), R12
	MOVQ n+24(FP), CX
	SHLQ $2, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ   AX, AX

loop18:
	PREFETCHT0  1024(BX)(AX*1)
	PREFETCHT0  1024(DX)(AX*1)
	PREFETCHT0  1024(DI)(AX*1)
	PREFETCHT0  1024(R8)(AX*1)
	PREFETCHT0  1024(R9)(AX*1)
	PREFETCHT0  1024(R10)(AX*1)
	PREFETCHT0  1024(R11)(AX*1)
	PREFETCHT0  1024(R12)(AX*1)
	VMOVUPS     (SI)(AX*1), Y8
	VFMADD231PS (BX)(AX*1), Y8, Y0
	VFMADD231PS (DX)(AX*1), Y8, Y1
	VFMADD231PS (DI)(AX*1), Y8, Y2
	VFMADD231PS (R8)(AX*1), Y8, Y3
	VFMADD231PS (R9)(AX*1), Y8, Y4
	VFMADD231PS (R10)(AX*1), Y8, Y5
	VFMADD231PS (R11)(AX*1), Y8, Y6
	VFMADD231PS (R12)(AX*1), Y8, Y7
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         loop18

	MOVQ    y+32(FP), SI
	MOVQ    ldy+40(FP), R12
	SHLQ    $2, R12
	MOVBLZX acc+48(FP), R13
	TESTQ   R13, R13
	JNZ     add18
	PUT(Y0, X0, 0(SI))
	ADDQ    R12, SI
	PUT(Y1, X1, 0(SI))
	ADDQ    R12, SI
	PUT(Y2, X2, 0(SI))
	ADDQ    R12, SI
	PUT(Y3, X3, 0(SI))
	ADDQ    R12, SI
	PUT(Y4, X4, 0(SI))
	ADDQ    R12, SI
	PUT(Y5, X5, 0(SI))
	ADDQ    R12, SI
	PUT(Y6, X6, 0(SI))
	ADDQ    R12, SI
	PUT(Y7, X7, 0(SI))
	VZEROUPPER
	RET

add18:
	ADD(Y0, X0, 0(SI))
	ADDQ    R12, SI
	ADD(Y1, X1, 0(SI))
	ADDQ    R12, SI
	ADD(Y2, X2, 0(SI))
	ADDQ    R12, SI
	ADD(Y3, X3, 0(SI))
	ADDQ    R12, SI
	ADD(Y4, X4, 0(SI))
	ADDQ    R12, SI
	ADD(Y5, X5, 0(SI))
	ADDQ    R12, SI
	ADD(Y6, X6, 0(SI))
	ADDQ    R12, SI
	ADD(Y7, X7, 0(SI))
	VZEROUPPER
	RET

// func dot1x1(x *float32, w *float32, n int, y *float32, acc bool)
//
// One input row against one weight row: the leftovers of the others.
TEXT ·dot1x1(SB), NOSPLIT, $0-33
	MOVQ   x+0(FP), SI
	MOVQ   w+8(FP), BX
	MOVQ   n+16(FP), CX
	SHLQ   $2, CX
	VXORPS Y0, Y0, Y0
	XORQ   AX, AX

loop11:
	VMOVUPS     (SI)(AX*1), Y8
	VFMADD231PS (BX)(AX*1), Y8, Y0
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         loop11

	MOVQ    y+24(FP), SI
	MOVBLZX acc+32(FP), R13
	TESTQ   R13, R13
	JNZ     add11
	PUT(Y0, X0, 0(SI))
	VZEROUPPER
	RET

add11:
	ADD(Y0, X0, 0(SI))
	VZEROUPPER
	RET
