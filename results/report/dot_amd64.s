#include "textflag.h"

// func dotLanes4(w, a, b, c, d []float64, out *[16]float64)
//
// For i < len(w) (a multiple of 4), out[4k+l] += w[i]·col_k[i] for every
// i ≡ l (mod 4), each lane summed in ascending i (continuing the sums in
// out, as dotBatch does chunk after chunk): SSE2 MULPD/ADDPD on
// lanes (l, l+1) are the scalar MULSD/ADDSD of dot, so the partial sums are
// dot's, bit for bit. Eight independent accumulators (two per column) hide
// the adder's latency.
TEXT ·dotLanes4(SB), NOSPLIT, $0-128
	MOVQ w_base+0(FP), SI
	MOVQ w_len+8(FP), CX
	MOVQ a_base+24(FP), R8
	MOVQ b_base+48(FP), R9
	MOVQ c_base+72(FP), R10
	MOVQ d_base+96(FP), R11
	MOVQ out+120(FP), DI
	MOVUPD 0(DI), X8
	MOVUPD 16(DI), X9
	MOVUPD 32(DI), X10
	MOVUPD 48(DI), X11
	MOVUPD 64(DI), X12
	MOVUPD 80(DI), X13
	MOVUPD 96(DI), X14
	MOVUPD 112(DI), X15
	SHLQ $3, CX
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	MOVUPD (SI)(AX*1), X0
	MOVUPD 16(SI)(AX*1), X1
	MOVUPD (R8)(AX*1), X2
	MOVUPD 16(R8)(AX*1), X3
	MULPD  X0, X2
	MULPD  X1, X3
	ADDPD  X2, X8
	ADDPD  X3, X9
	MOVUPD (R9)(AX*1), X4
	MOVUPD 16(R9)(AX*1), X5
	MULPD  X0, X4
	MULPD  X1, X5
	ADDPD  X4, X10
	ADDPD  X5, X11
	MOVUPD (R10)(AX*1), X2
	MOVUPD 16(R10)(AX*1), X3
	MULPD  X0, X2
	MULPD  X1, X3
	ADDPD  X2, X12
	ADDPD  X3, X13
	MOVUPD (R11)(AX*1), X4
	MOVUPD 16(R11)(AX*1), X5
	MULPD  X0, X4
	MULPD  X1, X5
	ADDPD  X4, X14
	ADDPD  X5, X15
	ADDQ   $32, AX
	JMP    loop

done:
	MOVUPD X8, 0(DI)
	MOVUPD X9, 16(DI)
	MOVUPD X10, 32(DI)
	MOVUPD X11, 48(DI)
	MOVUPD X12, 64(DI)
	MOVUPD X13, 80(DI)
	MOVUPD X14, 96(DI)
	MOVUPD X15, 112(DI)
	RET
