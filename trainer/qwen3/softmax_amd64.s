#include "textflag.h"

// func maxNaN8(x *float32, n int) (top float32, nan bool)
//
// The largest of n values (a positive multiple of 8), eight lanes at a
// time, and whether any is NaN. Where a maximum is reached by both +0 and
// −0 the lanes may keep either, so SoftmaxLSE redoes a zero maximum (and
// a NaN) with its Go loop.
TEXT ·maxNaN8(SB), NOSPLIT, $0-21
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	SHLQ         $2, CX
	ADDQ         SI, CX
	MOVL         $0xff800000, AX // −Inf
	MOVL         AX, X1
	VBROADCASTSS X1, Y1
	VXORPS       Y3, Y3, Y3

loopmax:
	VMOVUPS (SI), Y0
	VMAXPS  Y0, Y1, Y1
	VCMPPS  $3, Y0, Y0, Y2 // unordered: NaN lanes
	VORPS   Y2, Y3, Y3
	ADDQ    $32, SI
	CMPQ    SI, CX
	JLT     loopmax

	VEXTRACTF128 $1, Y1, X0
	VMAXPS       X0, X1, X1
	VMOVHLPS     X1, X1, X0
	VMAXPS       X0, X1, X1
	VMOVSHDUP    X1, X0
	VMAXSS       X0, X1, X1
	VMOVSS       X1, top+16(FP)
	VMOVMSKPS    Y3, AX
	TESTL        AX, AX
	SETNE        nan+20(FP)
	VZEROUPPER
	RET

// func scaleShift8(p *float64, x *float32, n int, t float32, mx float64)
//
// p[i] = float64(x[i]/t) − mx for n values (a positive multiple of 8):
// the division in float32 and the subtraction in float64, each rounded
// once as the Go loop rounds them, so the bits are the Go loop's.
TEXT ·scaleShift8(SB), NOSPLIT, $0-40
	MOVQ         p+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	SHLQ         $2, CX
	ADDQ         SI, CX
	VBROADCASTSS t+24(FP), Y15
	VBROADCASTSD mx+32(FP), Y14

loopdiv:
	VMOVUPS      (SI), Y0
	VDIVPS       Y15, Y0, Y0
	VCVTPS2PD    X0, Y1
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD    X2, Y3
	VSUBPD       Y14, Y1, Y1
	VSUBPD       Y14, Y3, Y3
	VMOVUPD      Y1, (DI)
	VMOVUPD      Y3, 32(DI)
	ADDQ         $32, SI
	ADDQ         $64, DI
	CMPQ         SI, CX
	JLT          loopdiv
	VZEROUPPER
	RET
